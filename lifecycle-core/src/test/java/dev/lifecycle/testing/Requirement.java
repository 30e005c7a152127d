package dev.lifecycle.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs of the machine (a program, root, {@code /proc}, a writable cgroup). Unmet, the
 * test skips and says why; under {@code CI=true} it fails instead, since CI must run every check.
 */
public final class Requirement {
  /**
   * The Debian package of each program a test may need that a machine with only a JDK (plus
   * coreutils, util-linux and a shell) may lack, for the reason an unmet requirement gives.
   */
  private static final Map<String, String> PACKAGES =
      Map.ofEntries(
          Map.entry("daemonize", "daemonize"),
          Map.entry("dbus-daemon", "dbus-daemon"),
          Map.entry("gcc", "gcc"),
          Map.entry("gpg-agent", "gpg-agent"),
          Map.entry("nginx", "nginx-light"),
          Map.entry("node", "nodejs"),
          Map.entry("npm", "npm"),
          Map.entry("npx", "npm"),
          Map.entry("redis-server", "redis-server"),
          Map.entry("setpriv", "util-linux"),
          Map.entry("ssh-agent", "openssh-client"),
          Map.entry("start-stop-daemon", "dpkg"),
          Map.entry("unshare", "util-linux"));

  private Requirement() {}

  /**
   * Returns when {@code met}; else skips the calling test, or fails it under {@code CI=true}.
   *
   * @param met whether the machine has what the test needs
   * @param why what is missing, for the skip or failure message
   */
  public static void require(boolean met, String why) {
    if (!met) {
      unmet(why);
    }
  }

  /**
   * Skips the calling test with {@code why}, or fails it under {@code CI=true}; never returns.
   *
   * @param why what is missing
   */
  public static void unmet(String why) {
    if ("true".equals(System.getenv("CI"))) {
      fail(why + " (CI=true: this check must run)");
    }
    Assumptions.abort(why);
  }

  /**
   * The program {@code name} as found on {@code PATH}; else skips the calling test, or fails it
   * under {@code CI=true}, naming the Debian package that provides it. Run the returned path, so
   * the test runs what was checked.
   *
   * @param name a program's file name, one this class knows the package of
   * @return the absolute path of the first executable {@code name} on {@code PATH}
   * @throws IllegalArgumentException when no package is known for {@code name}
   */
  public static Path program(String name) {
    missing(List.of(name)).ifPresent(Requirement::unmet);
    return onPath(name).orElseThrow();
  }

  /**
   * What of {@code programs} is not on {@code PATH}, as the reason an unmet requirement gives, for
   * a test that runs what it can and then reports the rest with {@link #unmet}.
   *
   * @param programs programs' file names, each one this class knows the package of
   * @return "needs ... on PATH (Debian package: ...)" naming every missing program, or empty
   * @throws IllegalArgumentException when no package is known for one of {@code programs}
   */
  public static Optional<String> missing(Collection<String> programs) {
    List<String> absent = new ArrayList<>();
    Set<String> packages = new LinkedHashSet<>();
    for (String name : programs) {
      String debian = PACKAGES.get(name);
      if (debian == null) {
        throw new IllegalArgumentException(
            name + ": no Debian package known; add it to Requirement's table");
      }
      if (onPath(name).isEmpty()) {
        absent.add(name);
        packages.add(debian);
      }
    }
    if (absent.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "needs "
            + String.join(", ", absent)
            + " on PATH (Debian package"
            + (packages.size() > 1 ? "s: " : ": ")
            + String.join(" ", packages)
            + ")");
  }

  /**
   * The program {@code name} as found on {@code PATH} or in the sbin directories, for a test that
   * runs what it can and reports the rest through {@link #program}.
   *
   * @param name a program's file name
   * @return the absolute path of the first executable {@code name} on {@code PATH}, if any
   */
  public static Optional<Path> onPath(String name) {
    // Debian installs daemons (nginx, start-stop-daemon) in sbin, which a user's PATH lacks.
    return search(name, System.getenv().getOrDefault("PATH", "") + SBIN);
  }

  private static final String SBIN = ":/usr/local/sbin:/usr/sbin:/sbin";

  /** Scans the directories of {@code path} (no process: a shell may be missing too). */
  static Optional<Path> search(String name, String path) {
    if (name.isEmpty() || name.contains("/")) {
      throw new IllegalArgumentException("not a program name: " + name);
    }
    for (String dir : path.split(":")) {
      if (dir.isEmpty()) {
        continue; // the working directory: never where a test's program comes from
      }
      try {
        Path candidate = Path.of(dir, name).toAbsolutePath();
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return Optional.of(candidate);
        }
      } catch (InvalidPathException e) {
        // a PATH entry that is no path holds no program
      }
    }
    return Optional.empty();
  }
}
