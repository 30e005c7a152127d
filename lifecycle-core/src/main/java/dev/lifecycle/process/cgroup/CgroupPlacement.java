package dev.lifecycle.process.cgroup;

import dev.lifecycle.internal.Ascii;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where trees get their cgroups: a writable parent and why it was chosen, or empty with every
 * candidate tried and why each was refused (path and errno). Immutable. Thread-safe.
 *
 * <p>Order: a configured parent (it must be usable: no silent fallback from an explicit choice);
 * else the JVM's own cgroup when writable (nesting under it: whoever put the JVM there, a test
 * harness or a delegated systemd unit, sees the trees as its own, and a move between the JVM's
 * cgroup and a child of it needs no access above it); else the hierarchy's root when writable. A
 * cgroup with domain controllers enabled in {@code cgroup.subtree_control} cannot hold processes in
 * its children while it has processes itself ("no internal processes"), so it is refused unless it
 * is the root.
 *
 * @param parent the chosen parent
 * @param reason why it was chosen, or why no candidate was usable
 */
public record CgroupPlacement(Optional<Cgroup> parent, String reason) {
  /** Linux 5.14 added cgroup.kill, which the CGROUP tier relies on. */
  private static final int[] KILL_SINCE = {5, 14};

  /**
   * Checks the components.
   *
   * @param parent the chosen parent
   * @param reason why it was chosen, or why no candidate was usable
   * @throws NullPointerException if a component is {@code null}
   */
  public CgroupPlacement {
    Objects.requireNonNull(parent, "parent");
    Objects.requireNonNull(reason, "reason");
  }

  /** What gives a JVM the CGROUP tier, appended to the reason when no candidate is writable. */
  public static final String HOW_TO_GET_CGROUP =
      "For the CGROUP tier run as root, in a systemd unit with Delegate=yes (or under systemd-run"
          + " --user --scope -p Delegate=yes), in a container with a writable cgroup, or set"
          + " lifecycle.cgroup.parent (LIFECYCLE_CGROUP_PARENT) to a cgroup v2 directory delegated"
          + " to this user; docs/TROUBLESHOOTING.md";

  /**
   * Chooses in {@code hierarchy}; {@code configured} is a path inside it or under its mount.
   *
   * @param hierarchy the cgroup v2 hierarchy
   * @param configured the configured parent, or empty to choose one
   * @return the chosen parent and why, or no parent and why each candidate was refused
   */
  public static CgroupPlacement choose(CgroupHierarchy hierarchy, Optional<String> configured) {
    Optional<String> kernel = kernelTooOld();
    if (kernel.isPresent()) {
      return new CgroupPlacement(Optional.empty(), kernel.get());
    }
    if (configured.isPresent()) {
      String text = configured.get();
      Cgroup cgroup;
      try {
        Path path = Path.of(text);
        cgroup =
            path.startsWith(hierarchy.mountPoint())
                ? hierarchy.at("/" + hierarchy.mountPoint().relativize(path))
                : hierarchy.at(text);
      } catch (IllegalArgumentException e) {
        return new CgroupPlacement(Optional.empty(), "configured parent '" + text + "': " + e);
      }
      Optional<String> refusal = refusal(cgroup, false);
      return refusal.isEmpty()
          ? new CgroupPlacement(Optional.of(cgroup), "configured parent " + cgroup + " (writable)")
          : new CgroupPlacement(
              Optional.empty(), "configured parent " + cgroup + ": " + refusal.get());
    }
    List<String> refused = new ArrayList<>();
    Optional<Cgroup> own = hierarchy.ofSelf();
    if (own.isPresent()) {
      Optional<String> refusal = refusal(own.get(), true);
      if (refusal.isEmpty()) {
        return new CgroupPlacement(
            own,
            "the JVM's cgroup " + own.get().relativePath() + " at " + own.get() + " (writable)");
      }
      refused.add("the JVM's cgroup " + own.get() + ": " + refusal.get());
    } else {
      refused.add("the JVM's cgroup: no 0:: line readable in /proc/self/cgroup");
    }
    Cgroup root = hierarchy.root();
    if (own.isEmpty() || !own.get().equals(root)) {
      Optional<String> refusal = refusal(root, false);
      if (refusal.isEmpty()) {
        return new CgroupPlacement(
            Optional.of(root), "the hierarchy's root " + root + " (writable)");
      }
      refused.add("the hierarchy's root " + root + ": " + refusal.get());
    }
    return new CgroupPlacement(
        Optional.empty(),
        "no writable cgroup: " + String.join("; ", refused) + ". " + HOW_TO_GET_CGROUP);
  }

  /** Why {@code cgroup} cannot be a parent, or empty when it can. */
  private static Optional<String> refusal(Cgroup cgroup, boolean holdsThisJvm) {
    if (!Files.isDirectory(cgroup.path())) {
      return Optional.of("ENOENT (no such cgroup)");
    }
    if (!Files.isWritable(cgroup.path())) {
      return Optional.of(accessFailure(cgroup.path()));
    }
    if (!Files.isWritable(cgroup.path().resolve("cgroup.procs"))) {
      return Optional.of(accessFailure(cgroup.path().resolve("cgroup.procs")));
    }
    if (!cgroup.isRoot()) {
      String controllers;
      try {
        controllers = cgroup.read("cgroup.subtree_control");
      } catch (RuntimeException e) {
        return Optional.of(e.getMessage());
      }
      boolean hasProcesses = holdsThisJvm || !cgroupProcsEmpty(cgroup);
      if (!controllers.isEmpty() && hasProcesses) {
        return Optional.of(
            "controllers '"
                + controllers
                + "' enabled in cgroup.subtree_control while it holds processes: its children"
                + " cannot take processes (EBUSY, no internal processes rule)");
      }
    }
    return Optional.empty();
  }

  private static boolean cgroupProcsEmpty(Cgroup cgroup) {
    try {
      return cgroup.processes().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  /** access(2) says no: a read-only mount (containers) or no delegation to this user. */
  private static String accessFailure(Path path) {
    try {
      if (Files.getFileStore(path).isReadOnly()) {
        return path + ": EROFS (cgroup2 mounted read-only, as in an unprivileged container)";
      }
    } catch (IOException e) {
      // fall through: name it as an access failure
    }
    return path + ": EACCES (not writable by uid " + uid() + "; not delegated to this user)";
  }

  private static String uid() {
    try {
      return String.valueOf(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    } catch (IOException | RuntimeException e) {
      return System.getProperty("user.name");
    }
  }

  private static Optional<String> kernelTooOld() {
    String release;
    try {
      release = Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
    } catch (IOException e) {
      return Optional.empty(); // unknown: cgroup.kill is checked again on the tree's cgroup
    }
    return tooOldForKill(release);
  }

  /**
   * Why a kernel of this release ({@code uname -r}, e.g. {@code 6.18.44-fc}) has no {@code
   * cgroup.kill}; empty when it has one or the release does not start with {@code major.minor}.
   * Read by hand, not split by a regular expression: this runs on a short-lived program's first
   * spawn, which loads and compiles no regex (docs/ARCHITECTURE.md, "Cold-path rules").
   */
  static Optional<String> tooOldForKill(String release) {
    int dot = Ascii.digitsEnd(release, 0);
    int end =
        dot < release.length() && release.charAt(dot) == '.'
            ? Ascii.digitsEnd(release, dot + 1)
            : -1;
    // one to six digits each: no overflow to catch
    if (dot < 1 || dot > 6 || end <= dot + 1 || end - dot > 7) {
      return Optional.empty();
    }
    int major = Integer.parseInt(release, 0, dot, 10);
    int minor = Integer.parseInt(release, dot + 1, end, 10);
    if (major < KILL_SINCE[0] || (major == KILL_SINCE[0] && minor < KILL_SINCE[1])) {
      return Optional.of("kernel " + release + " has no cgroup.kill (Linux >= 5.14 needed)");
    }
    return Optional.empty();
  }
}
