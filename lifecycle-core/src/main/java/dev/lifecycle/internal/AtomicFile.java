package dev.lifecycle.internal;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * The one atomic, durable file replacement: the bytes go to a fresh 0600 temp file beside the
 * target (named {@code .<target>.<pid>.<random>.tmp}, so a sweep can tell whose it is), are forced
 * to disk, and the temp file is renamed over the target (inside {@code around}, e.g. under a lock),
 * then the directory is forced. A reader sees the old file or the new one, whole; {@code rename(2)}
 * replaces a link at the target itself and never writes through one. On failure the temp file is
 * removed and the target is untouched. Thread-safe (no shared state).
 */
public final class AtomicFile {
  private AtomicFile() {}

  /** Runs the rename, e.g. under a lock. */
  @FunctionalInterface
  public interface Around {
    /**
     * Runs {@code rename}, with whatever must surround it.
     *
     * @param rename the atomic rename of the temp file over the target
     * @throws IOException if the rename or what surrounds it fails
     */
    void run(FileLocks.Action<Void> rename) throws IOException;
  }

  /**
   * The prefix of temp files of {@code target}'s name written by process {@code pid}.
   *
   * @param targetName the file name of the target
   * @param pid the writer's pid
   * @return {@code .<targetName>.<pid>.}
   */
  public static String tempPrefix(String targetName, long pid) {
    return "." + targetName + "." + pid + ".";
  }

  /** The suffix of every temp file. */
  public static final String TEMP_SUFFIX = ".tmp";

  /**
   * Replaces {@code target} with {@code bytes}, the rename run by {@code around}.
   *
   * @param target the file to replace
   * @param bytes its new content
   * @param around runs the rename (e.g. under a lock)
   * @throws IOException if writing, syncing or renaming fails (the temp file is removed)
   */
  public static void replace(Path target, byte[] bytes, Around around) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path temp =
        Files.createTempFile(
            dir,
            tempPrefix(target.getFileName().toString(), ProcessHandle.current().pid()),
            TEMP_SUFFIX,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      try (FileChannel channel = FileChannel.open(temp, WRITE, NOFOLLOW_LINKS)) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      around.run(
          () -> {
            try {
              Files.move(temp, target, ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
              throw new IOException("cannot replace " + target + " atomically", e);
            }
            syncDirectory(dir);
            return null;
          });
    } finally {
      Files.deleteIfExists(temp); // only after a failure: a renamed temp no longer exists
    }
  }

  /**
   * {@link #replace(Path, byte[], Around)} with the rename run directly.
   *
   * @param target the file to replace
   * @param bytes its new content
   * @throws IOException if writing, syncing or renaming fails (the temp file is removed)
   */
  public static void replace(Path target, byte[] bytes) throws IOException {
    replace(target, bytes, FileLocks.Action::run);
  }

  /**
   * Removes temp files of {@code target} left by writers that died mid-write ({@code
   * writerGone.test(pid)} must be proof, e.g. ESRCH), without following links.
   *
   * @param target the file whose temp files are looked for
   * @param writerGone whether the writer with a pid is proven gone
   * @return the files removed
   */
  public static List<Path> sweepTemps(Path target, LongPredicate writerGone) {
    Path dir = target.toAbsolutePath().getParent();
    String prefix = "." + target.getFileName() + ".";
    List<Path> removed = new ArrayList<>();
    try (DirectoryStream<Path> entries =
        Files.newDirectoryStream(dir, prefix + "*" + TEMP_SUFFIX)) {
      for (Path entry : entries) {
        String rest = entry.getFileName().toString().substring(prefix.length());
        int dot = rest.indexOf('.');
        try {
          long pid = Long.parseLong(rest.substring(0, Math.max(dot, 0)));
          if (pid > 0
              && writerGone.test(pid)
              && Files.isRegularFile(entry, NOFOLLOW_LINKS)
              && Files.deleteIfExists(entry)) {
            removed.add(entry);
          }
        } catch (NumberFormatException | IOException e) {
          // Not one of ours, or gone meanwhile.
        }
      }
    } catch (IOException e) {
      return removed;
    }
    return removed;
  }

  /**
   * Makes a rename or delete in {@code dir} durable; not every platform can force a directory.
   *
   * @param dir the directory that holds the renamed or deleted entry
   */
  public static void syncDirectory(Path dir) {
    try (FileChannel channel = FileChannel.open(dir, READ)) {
      channel.force(true);
    } catch (IOException | RuntimeException e) {
      // The rename is still atomic; only its durability across power loss is weaker.
    }
  }
}
