package dev.lifecycle.process.cgroup;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads of a cgroup directory that take a cgroup being removed for removed: its files, its
 * sub-cgroups, its processes and {@code cgroup.events}. Its own removal races every look at a
 * tree's cgroup: the kernel first deactivates the cgroup's files (a read of an open one fails with
 * ENODEV, an open with ENOENT) and only then unlinks the directory. A failed read is therefore
 * retried while the directory is still there, for at most {@link #REMOVAL_WINDOW}, and an error is
 * reported only when the cgroup outlives that. Stateless and thread-safe.
 */
final class CgroupReads {
  /** How long a removal may leave the directory behind its deactivated files. */
  private static final Duration REMOVAL_WINDOW = Duration.ofMillis(10);

  private CgroupReads() {}

  /** The pids in the {@code cgroup.procs} of {@code dir} and of every cgroup below it, appended. */
  static void members(Path dir, List<Long> out) throws IOException {
    processes(dir, out);
    for (Path sub : subdirectories(dir)) {
      members(sub, out);
    }
  }

  /** The pids in the {@code cgroup.procs} of {@code dir}, appended; none once it is removed. */
  static void processes(Path dir, List<Long> out) throws IOException {
    byte[] text = file(dir.resolve("cgroup.procs"));
    if (text != null) {
      PidList.parse(text, text.length, out);
    }
  }

  /** The sub-cgroups of {@code dir}; none once it is removed. */
  static List<Path> subdirectories(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) { // a plain loop: no lambda to spin up in a short-lived JVM
        if (Files.isDirectory(entry)) {
          out.add(entry);
        }
      }
    } catch (NoSuchFileException e) {
      return out;
    } catch (IOException e) {
      throw Errno.wrap("list " + dir, e);
    }
    return out;
  }

  /** {@code cgroup.events} of {@code dir}; neither populated nor frozen once it is removed. */
  static Events events(Path dir) throws IOException {
    byte[] text = file(dir.resolve("cgroup.events"));
    return text == null ? new Events(false, false) : Events.parse(new String(text, US_ASCII));
  }

  /** A file of a cgroup, or {@code null} when the cgroup has been removed. */
  private static byte[] file(Path file) throws IOException {
    long deadline = System.nanoTime() + REMOVAL_WINDOW.toNanos();
    while (true) {
      try {
        return Files.readAllBytes(file);
      } catch (IOException e) {
        if (!Files.isDirectory(file.getParent())) {
          return null;
        }
        if (System.nanoTime() - deadline > 0) {
          throw Errno.wrap("read " + file, e);
        }
        LockSupport.parkNanos(20_000);
      }
    }
  }

  /** cgroup.events: whether populated, whether frozen. */
  record Events(boolean populated, boolean frozen) {
    static Events parse(String text) {
      boolean populated = false;
      boolean frozen = false;
      for (String line : text.split("\n")) {
        if (line.equals("populated 1")) {
          populated = true;
        } else if (line.equals("frozen 1")) {
          frozen = true;
        }
      }
      return new Events(populated, frozen);
    }
  }
}
