package dev.lifecycle.posix;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Presets JNA's library search path on Linux so that JNA's start-up runs no {@code /sbin/ldconfig
 * -p}. Unless {@code jna.platform.library.path} is set, JNA computes it once per JVM and, on Linux,
 * starts {@code ldconfig -p} (a child process through the JDK's process launcher) to learn the
 * directories of the loader cache: tens of milliseconds of every first spawn, for a list this
 * module never needs (libc is opened by its soname, which {@code dlopen} resolves itself). The
 * preset lists the same directories without a process: those {@code /etc/ld.so.conf} names (with
 * its {@code include} files), then the loader's trusted directories, as far as they exist. A value
 * set by the user is left alone. Called before the first JNA class initialises; idempotent and
 * thread-safe (a race only computes the same value twice).
 */
final class JnaSearchPath {
  static final String PROPERTY = "jna.platform.library.path";

  private static final Path CONFIG = Path.of("/etc/ld.so.conf");
  private static final List<String> TRUSTED = List.of("/usr/lib64", "/lib64", "/usr/lib", "/lib");
  private static final int MAX_INCLUDE_DEPTH = 4;

  private JnaSearchPath() {}

  static void presetUnlessSet() {
    if (!"Linux".equals(System.getProperty("os.name")) || System.getProperty(PROPERTY) != null) {
      return;
    }
    System.setProperty(PROPERTY, String.join(":", directories(CONFIG)));
  }

  /** The directories {@code config} names (includes followed), then the trusted ones. */
  static Set<String> directories(Path config) {
    Set<String> found = new LinkedHashSet<>();
    read(config, found, 0);
    for (String dir : TRUSTED) {
      if (Files.isDirectory(Path.of(dir))) {
        found.add(dir);
      }
    }
    return found;
  }

  private static void read(Path config, Set<String> found, int depth) {
    List<String> lines;
    try {
      lines = Files.readAllLines(config);
    } catch (IOException | RuntimeException e) {
      return; // no or unreadable configuration: the trusted directories remain
    }
    for (String raw : lines) {
      int hash = raw.indexOf('#');
      String line = (hash >= 0 ? raw.substring(0, hash) : raw).trim();
      if (line.startsWith("include ") || line.startsWith("include\t")) {
        if (depth < MAX_INCLUDE_DEPTH) {
          include(config, line.substring(8).trim(), found, depth + 1);
        }
      } else if (line.startsWith("/") && Files.isDirectory(Path.of(line))) {
        found.add(line);
      }
    }
  }

  /** {@code include <pattern>}: a glob in its last name only, as ld.so.conf files use it. */
  private static void include(Path config, String pattern, Set<String> found, int depth) {
    Path path = Path.of(pattern);
    if (!path.isAbsolute()) {
      path = config.resolveSibling(pattern);
    }
    Path dir = path.getParent();
    if (dir == null || path.getFileName() == null) {
      return;
    }
    try (DirectoryStream<Path> files =
        Files.newDirectoryStream(dir, path.getFileName().toString())) {
      List<Path> sorted = new ArrayList<>();
      files.forEach(sorted::add);
      sorted.sort(null);
      for (Path file : sorted) {
        read(file, found, depth);
      }
    } catch (IOException | RuntimeException e) {
      // an unreadable include directory adds nothing, as ldconfig would skip it
    }
  }
}
