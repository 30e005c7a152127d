package dev.lifecycle.process.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The cgroup v2 (unified) hierarchy of this machine, found in {@code /proc/self/mountinfo}: at
 * {@code /sys/fs/cgroup} on a pure v2 host, beside the v1 controllers (for example at {@code
 * /sys/fs/cgroup/unified}) on a hybrid one. Never a fixed path. Immutable and thread-safe.
 */
public final class CgroupHierarchy {
  private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");

  private final Path mountPoint;
  private final String mountRoot;

  private CgroupHierarchy(Path mountPoint, String mountRoot) {
    this.mountPoint = mountPoint;
    this.mountRoot = mountRoot;
  }

  /**
   * The hierarchy, or empty with no cgroup2 mount (not Linux, cgroup v1 only, or /proc absent).
   * Reads mountinfo on every call; {@link dev.lifecycle.process.Containment#current()} caches.
   *
   * @return the first cgroup2 mount in {@code /proc/self/mountinfo}
   */
  public static Optional<CgroupHierarchy> locate() {
    Optional<CgroupHierarchy> found;
    try {
      found = parse(Files.readAllLines(MOUNTINFO));
    } catch (IOException | RuntimeException e) {
      found = Optional.empty();
    }
    found.ifPresent(h -> lastLocated = h);
    return found;
  }

  /**
   * The last hierarchy {@link #locate()} found, so a cgroup named by its directory costs no read.
   */
  private static volatile CgroupHierarchy lastLocated;

  /**
   * The hierarchy whose mount holds {@code directory}: the one last located when it does (no
   * mountinfo read: a spawn into a cgroup resolves its directory this way), else located again.
   *
   * @param directory an absolute, normalized directory
   * @return the hierarchy, or empty when no cgroup2 mount holds {@code directory}
   */
  static Optional<CgroupHierarchy> holding(Path directory) {
    CgroupHierarchy known = lastLocated;
    if (known != null && directory.startsWith(known.mountPoint)) {
      return Optional.of(known);
    }
    return locate().filter(h -> directory.startsWith(h.mountPoint));
  }

  /** The first cgroup2 mount of a mountinfo text (fields: see proc(5)). */
  static Optional<CgroupHierarchy> parse(List<String> mountinfo) {
    for (String line : mountinfo) {
      int dash = line.indexOf(" - ");
      if (dash < 0) {
        continue;
      }
      String[] after = line.substring(dash + 3).split(" ");
      if (after.length == 0 || !after[0].equals("cgroup2")) {
        continue;
      }
      String[] before = line.substring(0, dash).split(" ");
      if (before.length < 5) {
        continue;
      }
      return Optional.of(new CgroupHierarchy(Path.of(unescape(before[4])), unescape(before[3])));
    }
    return Optional.empty();
  }

  /** mountinfo escapes space, tab, newline and backslash as octal. */
  private static String unescape(String field) {
    StringBuilder out = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && i + 3 < field.length()) {
        try {
          out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
          i += 3;
          continue;
        } catch (NumberFormatException e) {
          // not an escape: keep the backslash
        }
      }
      out.append(c);
    }
    return out.toString();
  }

  /**
   * Where the hierarchy is mounted, e.g. {@code /sys/fs/cgroup/unified}.
   *
   * @return the mount point, absolute
   */
  public Path mountPoint() {
    return mountPoint;
  }

  /**
   * The hierarchy's root cgroup as this mount shows it.
   *
   * @return the cgroup at the mount point
   */
  public Cgroup root() {
    return new Cgroup(this, mountPoint);
  }

  /**
   * The cgroup at {@code relative} ({@code /a/b} as in {@code /proc/<pid>/cgroup}).
   *
   * @param relative the path inside the hierarchy, starting with {@code /}
   * @return the cgroup there, which may or may not exist
   * @throws IllegalArgumentException if a path element is {@code .} or {@code ..}
   */
  public Cgroup at(String relative) {
    String inMount = relative;
    // A mount of a sub-tree (a cgroup namespace or a bind mount) shows paths below its root.
    if (!mountRoot.equals("/") && inMount.startsWith(mountRoot)) {
      inMount = inMount.substring(mountRoot.length());
    }
    Path path = mountPoint;
    for (String part : inMount.split("/")) {
      if (part.isEmpty()) {
        continue;
      }
      if (part.equals("..") || part.equals(".")) {
        throw new IllegalArgumentException("not a cgroup path: " + relative);
      }
      path = path.resolve(part);
    }
    return new Cgroup(this, path);
  }

  /**
   * The cgroup {@code pid} is in now (its {@code 0::} line), or empty when it cannot be read.
   *
   * @param pid the process id
   * @return its cgroup, or empty when the file cannot be read or the cgroup was deleted
   */
  public Optional<Cgroup> of(long pid) {
    return read(Path.of("/proc/" + pid + "/cgroup"));
  }

  /**
   * The cgroup this JVM is in now.
   *
   * <p>Read through {@code /proc/self}, which names the reader even where {@code /proc} is another
   * pid namespace's, and which starts no JDK process API (its reaper set-up) in a short-lived JVM.
   *
   * @return this JVM's cgroup, or empty when it cannot be read
   */
  public Optional<Cgroup> ofSelf() {
    return read(Path.of("/proc/self/cgroup"));
  }

  private Optional<Cgroup> read(Path file) {
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith("0::")) {
          String relative = line.substring(3);
          if (relative.endsWith(" (deleted)")) {
            return Optional.empty();
          }
          return Optional.of(at(relative));
        }
      }
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return "cgroup2 at " + mountPoint + (mountRoot.equals("/") ? "" : " (root " + mountRoot + ")");
  }
}
