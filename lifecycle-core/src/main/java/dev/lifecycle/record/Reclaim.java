package dev.lifecycle.record;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;

import dev.lifecycle.internal.AtomicFile;
import dev.lifecycle.internal.LazyLogger;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@link RecordStore#read} does with a record it must not serve: reclaims one whose owner is
 * proven gone (its confined artifacts, then the record, then the name's litter) and renames a
 * corrupt one aside. Each acts under the name's lock and only on the record that was read: it
 * returns null when the record changed meanwhile, for the caller to judge the new one.
 */
record Reclaim(Path directory, UserPrincipal user, Litter litter, RecordLock lock) {
  private static final LazyLogger LOG = LazyLogger.of(RecordStore.class);

  /** Built when a record is first quarantined: a formatter is slow to build. */
  private static final class Stamp {
    static final DateTimeFormatter FORMAT =
        DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmssSSS'Z'").withZone(ZoneOffset.UTC);
  }

  /**
   * Reclaims the record {@code file} of {@code name}, whose owner is gone, if it is still {@code
   * seen}.
   */
  ReadResult ownerGone(String name, Path file, RecordFile seen, SessionRecord record)
      throws IOException {
    return lock.holding(name, () -> unchanged(file, seen) ? reclaim(name, file, record) : null);
  }

  /** Renames the record {@code file} of {@code name} aside, if it is still {@code seen}. */
  ReadResult corrupt(String name, Path file, RecordFile seen, RecordFormat.Unreadable why)
      throws IOException {
    return lock.holding(name, () -> unchanged(file, seen) ? quarantine(name, file, why) : null);
  }

  private boolean unchanged(Path file, RecordFile seen) throws IOException {
    return seen.sameAs(RecordFile.read(file, user));
  }

  private ReadResult reclaim(String name, Path file, SessionRecord record) throws IOException {
    // Artifacts first: if we die half-way, the record still leads the next reader here.
    List<Path> leftBehind = new ArrayList<>();
    for (Map.Entry<ArtifactKind, Path> artifact : record.artifacts().entrySet()) {
      String outside =
          Confinement.check(directory, name, record, artifact.getKey(), artifact.getValue());
      if (outside != null) {
        LOG.warn("Left {} in place: {}", artifact.getValue(), outside);
        leftBehind.add(artifact.getValue());
      } else if (!SafeFiles.deleteArtifact(artifact.getKey(), artifact.getValue(), user)) {
        leftBehind.add(artifact.getValue());
      }
    }
    Files.delete(file);
    AtomicFile.syncDirectory(directory);
    litter.sweep(name, null);
    LOG.info("Reclaimed {}: owner {} is gone", file, record.owner());
    return ReadResult.ownerGone(name, record, leftBehind);
  }

  private ReadResult quarantine(String name, Path file, RecordFormat.Unreadable why)
      throws IOException {
    Path aside = directory.resolve(name + ".corrupt-" + Stamp.FORMAT.format(Instant.now()));
    for (int i = 1; Files.exists(aside, NOFOLLOW_LINKS); i++) {
      aside = directory.resolve(name + ".corrupt-" + Stamp.FORMAT.format(Instant.now()) + "-" + i);
    }
    Files.move(file, aside, ATOMIC_MOVE);
    AtomicFile.syncDirectory(directory);
    LOG.warn("Quarantined corrupt session record {} as {}: {}", file, aside, why.getMessage());
    return ReadResult.corrupt(name, Optional.of(aside), why.getMessage());
  }
}
