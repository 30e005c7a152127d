package dev.lifecycle.posix;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Presets JNA's library search path on Linux so that JNA's start-up runs no {@code /sbin/ldconfig
 * -p}. Unless {@code jna.platform.library.path} is set, JNA computes it once per JVM and, on Linux,
 * starts {@code ldconfig -p} (a child process through the JDK's process launcher) to learn the
 * directories of the loader cache: a process on every first spawn, for a list this module never
 * needs (libc is opened by its soname, which {@code dlopen} resolves itself). The preset lists the
 * same directories without a process: those {@code /etc/ld.so.conf} names (with its {@code include}
 * files), then the loader's trusted directories, as far as they exist. A value set by the user is
 * left alone. Called before the first JNA class initialises; idempotent and thread-safe (a race
 * only computes the same value twice).
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
    String glob = path.getFileName().toString();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      PathMatcher other =
          isSimple(glob) ? null : dir.getFileSystem().getPathMatcher("glob:" + glob);
      List<Path> sorted = new ArrayList<>();
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (other != null ? other.matches(file.getFileName()) : matches(glob, name)) {
          sorted.add(file);
        }
      }
      sorted.sort(null);
      for (Path file : sorted) {
        read(file, found, depth);
      }
    } catch (IOException | RuntimeException e) {
      // an unreadable include directory adds nothing, as ldconfig would skip it
    }
  }

  /** Only {@code *} and {@code ?}: what ld.so.conf files use, matched without a regex. */
  private static boolean isSimple(String glob) {
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      if (c == '[' || c == '{' || c == '\\') {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code name} matches {@code glob} ({@code *} any run, {@code ?} one character), as
   * glob(3) does for ldconfig: a leading dot is matched only by a leading dot. By hand, not by the
   * JDK's glob: that compiles a regular expression on a short-lived program's first spawn.
   */
  static boolean matches(String glob, String name) {
    if (name.startsWith(".") && !glob.startsWith(".")) {
      return false;
    }
    int g = 0;
    int n = 0;
    int star = -1; // the last '*' seen, and where in the name its run started
    int mark = 0;
    while (n < name.length()) {
      char c = g < glob.length() ? glob.charAt(g) : 0; // 0: the glob is used up
      if (c == '*') {
        star = g++;
        mark = n;
      } else if (c != 0 && (c == '?' || c == name.charAt(n))) {
        g++;
        n++;
      } else if (star >= 0) {
        g = star + 1;
        n = ++mark;
      } else {
        return false;
      }
    }
    while (g < glob.length() && glob.charAt(g) == '*') {
      g++;
    }
    return g == glob.length();
  }
}
