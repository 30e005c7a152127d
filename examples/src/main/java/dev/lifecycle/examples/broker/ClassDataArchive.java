package dev.lifecycle.examples.broker;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * JVM options that give a helper JVM (the broker) an AppCDS archive of its own in the directory the
 * launcher names ({@code -Dexample.cds.dir}): the archive when it exists, otherwise a training run
 * that writes one at exit ({@code -XX:ArchiveClassesAtExit}, JDK 13+) under a private name. A
 * private file untouched for {@link #SETTLED} is complete (the JVM writes it in well under a second
 * at exit) and is renamed into place by the next spawn; an unusable archive only costs its benefit
 * ({@code -Xshare:auto}: the JVM runs without it).
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
    if (!Files.isRegularFile(archive)) {
      promoteSettled(dir, archive);
    }
    if (Files.isRegularFile(archive)) {
      return List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      return List.of();
    }
    Path partial = archive.resolveSibling(archive.getFileName() + "." + UUID.randomUUID() + ".tmp");
    return List.of("-XX:ArchiveClassesAtExit=" + partial, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
  }

  private static void promoteSettled(Path dir, Path archive) {
    Instant settled = Instant.now().minus(SETTLED);
    try (DirectoryStream<Path> partials =
        Files.newDirectoryStream(dir, archive.getFileName() + ".*.tmp")) {
      for (Path partial : partials) {
        if (Files.size(partial) > 0
            && Files.getLastModifiedTime(partial).toInstant().isBefore(settled)) {
          Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
          return;
        }
      }
    } catch (IOException e) {
      // no directory yet, or another spawn promoted it first: train again or use theirs
    }
  }
}
