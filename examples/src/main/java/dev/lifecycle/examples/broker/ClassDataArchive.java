package dev.lifecycle.examples.broker;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * JVM options that give a helper JVM (the broker) an AppCDS archive of its own in the directory the
 * launcher names ({@code -Dexample.cds.dir}): the archive when it exists, otherwise a training run
 * that writes one at exit ({@code -XX:ArchiveClassesAtExit}, JDK 13+) under a private name. A
 * private file untouched for {@link #SETTLED} is complete (the JVM writes it in well under a second
 * at exit) and is renamed into place by the next spawn; the other settled ones (brokers that
 * trained at the same time) are deleted once an archive is in use, so no 10 MB file is left per
 * cold start. An unusable archive only costs its benefit ({@code -Xshare:auto}: the JVM runs
 * without it).
 */
final class ClassDataArchive {
  static final String DIRECTORY_PROPERTY = "example.cds.dir";
  static final Duration SETTLED = Duration.ofSeconds(10);

  private ClassDataArchive() {}

  /** The options for a JVM named {@code name}; none when no directory is configured. */
  static List<String> options(String name) {
    String directory = System.getProperty(DIRECTORY_PROPERTY, "");
    if (directory.isBlank()) {
      return List.of();
    }
    Path dir = Path.of(directory);
    Path archive =
        dir.resolve(
            name + "-" + Runtime.version().version().get(0) + "-" + Runtime.version() + ".jsa");
    if (!Files.isRegularFile(archive) || isStale(archive)) {
      promoteSettled(dir, archive);
    }
    if (Files.isRegularFile(archive) && !isStale(archive)) {
      deleteSettled(dir, archive);
      return List.of(
          "-XX:SharedArchiveFile=" + archive,
          "-Xlog:cds=off",
          "-Xlog:cds+dynamic=off",
          "-Xlog:cds=warning,cds+dynamic=warning:file=" + rejected(archive) + "::filecount=0");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      return List.of();
    }
    Path partial = archive.resolveSibling(archive.getFileName() + "." + UUID.randomUUID() + ".tmp");
    return List.of("-XX:ArchiveClassesAtExit=" + partial, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
  }

  /**
   * Where a JVM that was given {@code archive} writes its CDS warnings: empty while the archive is
   * in use, the reason when the JVM refused it.
   */
  static Path rejected(Path archive) {
    return archive.resolveSibling(archive.getFileName() + ".rejected");
  }

  /**
   * Whether the last JVM given the archive refused it ({@link #rejected}: a jar replaced by an
   * older file, which keeps its own time), or a jar of this JVM's class path (or of the {@code
   * lib/} next to it, which a manifest Class-Path names) is newer than the archive: the JVM would
   * ignore the archive. A stale archive is deleted (and the refusal with it) so this spawn trains a
   * new one.
   */
  private static boolean isStale(Path archive) {
    try {
      Path rejected = rejected(archive);
      if (Files.isRegularFile(rejected) && Files.size(rejected) > 0) {
        Files.deleteIfExists(archive);
        Files.deleteIfExists(rejected);
        return true;
      }
      long built = Files.getLastModifiedTime(archive).toMillis();
      for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
        Path jar = Path.of(entry).toAbsolutePath();
        List<Path> jars = new ArrayList<>(List.of(jar));
        Path lib = jar.resolveSibling("lib");
        if (Files.isDirectory(lib)) {
          try (DirectoryStream<Path> libs = Files.newDirectoryStream(lib, "*.jar")) {
            libs.forEach(jars::add);
          }
        }
        for (Path candidate : jars) {
          if (Files.isRegularFile(candidate)
              && Files.getLastModifiedTime(candidate).toMillis() > built) {
            Files.deleteIfExists(archive);
            return true;
          }
        }
      }
      return false;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** Leftover training runs of an archive in use; one still being written is not settled yet. */
  private static void deleteSettled(Path dir, Path archive) {
    for (Path partial : settledPartials(dir, archive)) {
      try {
        Files.deleteIfExists(partial);
      } catch (IOException e) {
        // it only costs disk space
      }
    }
  }

  private static void promoteSettled(Path dir, Path archive) {
    for (Path partial : settledPartials(dir, archive)) {
      try {
        if (Files.size(partial) > 0) {
          Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
          return;
        }
      } catch (IOException e) {
        // another spawn promoted or deleted it first: the next one, or train again
      }
    }
  }

  /** The training runs of {@code archive} untouched for {@link #SETTLED}: complete or dead. */
  private static List<Path> settledPartials(Path dir, Path archive) {
    Instant settled = Instant.now().minus(SETTLED);
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> partials =
        Files.newDirectoryStream(dir, archive.getFileName() + ".*.tmp")) {
      for (Path partial : partials) {
        if (Files.getLastModifiedTime(partial).toInstant().isBefore(settled)) {
          found.add(partial);
        }
      }
    } catch (IOException e) {
      // no directory yet, or a partial went while listing: what was found is enough
    }
    return found;
  }
}
