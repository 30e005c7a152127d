package dev.lifecycle.record;

import dev.lifecycle.internal.AtomicFile;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.internal.OwnerOnly;
import dev.lifecycle.internal.Unguessable;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What owners of a record name leave in a store beside the record: generation directories named
 * after their creator ({@code <name>.gen-<pid>-<start>-<clock>-<random>}, base 36) and publishers'
 * temp files named after their pid, and the sweep that removes those of owners proven gone.
 * Thread-safe (callers hold the name's lock for a sweep).
 */
final class Litter {
  private static final LazyLogger LOG = LazyLogger.of(Litter.class);
  private static final String GENERATION = ".gen-";

  private final Path directory;
  private final UserPrincipal user;
  private final ProcessPlatform platform;

  Litter(Path directory, UserPrincipal user, ProcessPlatform platform) {
    this.directory = directory;
    this.user = user;
    this.platform = platform;
  }

  /** A fresh owner-only generation directory for {@code name}, named after this process. */
  Path createGenerationDirectory(String name) throws IOException {
    ProcessIdentity self = platform.self();
    String prefix = generationPrefix(name, self, platform.capabilities().platform());
    // Short: a Unix socket path inside it must stay under the kernel's 107 bytes.
    for (int attempt = 0; ; attempt++) {
      String random = Long.toString(Unguessable.nextLong() & 0x1ffffffL, 36); // 5 characters
      try {
        return Files.createDirectory(
            directory.resolve(prefix + random),
            PosixFilePermissions.asFileAttribute(OwnerOnly.DIRECTORY_MODE));
      } catch (FileAlreadyExistsException e) {
        if (attempt >= 100) {
          throw e;
        }
      }
    }
  }

  /**
   * Removes generation directories of {@code name} that {@code current} does not name and whose
   * creator is proven gone, and temp files of publishers proven gone. Call under the name's lock.
   */
  List<Path> sweep(String name, SessionRecord current) {
    Path named = current == null ? null : current.artifacts().get(ArtifactKind.DIRECTORY);
    String genPrefix = name + GENERATION;
    String tempPrefix = "." + name + ".record.";
    List<Path> removed = new ArrayList<>();
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(directory)) {
      dir.forEach(entries::add);
    } catch (IOException e) {
      LOG.debug("Cannot list {} for litter: {}", directory, e.toString());
      return removed;
    }
    for (Path entry : entries) {
      String leaf = entry.getFileName().toString();
      if (leaf.startsWith(genPrefix) && !entry.equals(named)) {
        Optional<ProcessIdentity> creator = generationCreator(leaf.substring(genPrefix.length()));
        if (creator.isPresent()
            && Liveness.judge(platform, creator.get()).isProvenGone()
            && SafeFiles.sweepDirectory(directory, entry, user)) {
          removed.add(entry);
        }
      } else if (leaf.startsWith(tempPrefix) && leaf.endsWith(AtomicFile.TEMP_SUFFIX)) {
        String rest = leaf.substring(tempPrefix.length());
        int dot = rest.indexOf('.');
        try {
          long pid = Long.parseLong(rest.substring(0, Math.max(dot, 0)));
          if (pid > 0
              && Liveness.judge(platform, ProcessIdentity.ofPid(pid)).isProvenGone()
              && SafeFiles.deleteArtifact(ArtifactKind.LOG_FILE, entry, user)) {
            removed.add(entry);
          }
        } catch (NumberFormatException e) {
          // Not one of ours.
        }
      }
    }
    if (!removed.isEmpty()) {
      AtomicFile.syncDirectory(directory);
      LOG.info("Swept litter of gone owners of {}: {}", name, removed);
    }
    return removed;
  }

  /** The creator named by a generation directory's suffix, comparable on this platform's clock. */
  private Optional<ProcessIdentity> generationCreator(String suffix) {
    String[] parts = suffix.split("-");
    if (parts.length < 4) {
      return Optional.empty();
    }
    try {
      long pid = Long.parseLong(parts[0], 36);
      long start = Long.parseLong(parts[1], 36);
      if (pid <= 0) {
        return Optional.empty();
      }
      boolean sameClock = parts[2].equals(clockTag(platform.capabilities().platform()));
      return Optional.of(
          sameClock ? new ProcessIdentity(pid, start, "") : ProcessIdentity.ofPid(pid));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  static String clockTag(String clock) {
    return Long.toString(clock.hashCode() & 0x3ff, 36); // 1-2 characters
  }

  /** {@code <name>.gen-<pid>-<start>-<clock>-}, numbers in base 36 to keep socket paths short. */
  static String generationPrefix(String name, ProcessIdentity creator, String clock) {
    return name
        + GENERATION
        + Long.toString(creator.pid(), 36)
        + "-"
        + Long.toString(Math.max(0, creator.startTime()), 36)
        + "-"
        + clockTag(clock)
        + "-";
  }
}
