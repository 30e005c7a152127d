package dev.lifecycle.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The installed JDKs by feature release: the one running the tests and every JDK under {@code
 * /usr/lib/jvm}, read from each home's {@code release} file. A missing release skips the calling
 * test, except under {@code CI=true}, where it fails: CI must run every release the build supports.
 */
public final class Jdks {
  private Jdks() {}

  /** The {@code java} launcher of JDK {@code major}; skips (fails under CI=true) when absent. */
  public static Path java(int major) {
    Path home = homes().get(major);
    if (home == null) {
      String message = "no JDK " + major + " found (java.home or /usr/lib/jvm)";
      Requirement.unmet(message + "; CI must run every JDK the build supports (17 and 25)");
    }
    return home.resolve("bin/java");
  }

  private static Map<Integer, Path> homes() {
    List<Path> candidates = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"))));
    File[] installed = new File("/usr/lib/jvm").listFiles();
    if (installed != null) {
      for (File f : installed) {
        candidates.add(f.toPath());
      }
    }
    Map<Integer, Path> found = new TreeMap<>();
    for (Path home : candidates) {
      majorOf(home).ifPresent(major -> found.putIfAbsent(major, home));
    }
    return found;
  }

  private static Optional<Integer> majorOf(Path home) {
    Path release = home.resolve("release");
    if (!Files.isExecutable(home.resolve("bin/java")) || !Files.isRegularFile(release)) {
      return Optional.empty();
    }
    try {
      for (String line : Files.readAllLines(release)) {
        if (line.startsWith("JAVA_VERSION=")) {
          String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
          int end = 0;
          while (end < version.length() && Character.isDigit(version.charAt(end))) {
            end++;
          }
          return end == 0
              ? Optional.empty()
              : Optional.of(Integer.parseInt(version.substring(0, end)));
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
