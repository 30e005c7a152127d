package dev.lifecycle.process;

import dev.lifecycle.internal.Ascii;
import dev.lifecycle.process.cgroup.Cgroup;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link ProcessPlatform#spawn} needs beyond a {@link ProcessBuilder} (which already carries
 * command, environment, working directory and redirects). Immutable and thread-safe.
 *
 * @param newSession start the child in a new session and process group of its own (the default;
 *     without it the child shares the JVM's group and cannot be signalled as a tree)
 * @param keepLeaderUnreaped observe the child's exit without reaping it, so its pid (and so its
 *     process group id) cannot be reused until {@link SupervisedProcess#reap()} is called. Tree
 *     handles use it to signal the group safely after the leader exited.
 * @param treeCookie a value exported as {@link #COOKIE_VARIABLE} to the child; descendants inherit
 *     it, so escapees that left the group (setsid, double fork) can still be found
 * @param cgroup the directory of a cgroup v2 the child is moved into as the first thing after the
 *     spawn call returns (the CGROUP containment tier): before the parent does anything else, while
 *     the child is still in its own session and group. Platforms without an earlier way (none here:
 *     glibc 2.36 has no {@code posix_spawnattr_setcgroup_np}, and {@code clone3(CLONE_INTO_CGROUP)}
 *     cannot be called safely from a JVM) leave a window of microseconds between the child's exec
 *     and the move; {@code ProcessTree} closes it. A failed move ends the child and fails the
 *     spawn.
 */
public record SpawnOptions(
    boolean newSession, boolean keepLeaderUnreaped, String treeCookie, Optional<Path> cgroup) {

  /** The environment variable that carries the tree cookie to every descendant. */
  public static final String COOKIE_VARIABLE = "LIFECYCLE_TREE_COOKIE";

  /**
   * Checks the cookie.
   *
   * @param newSession start the child in a new session and process group of its own (the default;
   *     without it the child shares the JVM's group and cannot be signalled as a tree)
   * @param keepLeaderUnreaped observe the child's exit without reaping it, so its pid (and so its
   *     process group id) cannot be reused until {@link SupervisedProcess#reap()} is called. Tree
   *     handles use it to signal the group safely after the leader exited.
   * @param treeCookie a value exported as {@link #COOKIE_VARIABLE} to the child; descendants
   *     inherit it, so escapees that left the group (setsid, double fork) can still be found
   * @param cgroup the directory of a cgroup v2 the child is moved into as the first thing after the
   *     spawn call returns (the CGROUP containment tier): before the parent does anything else,
   *     while the child is still in its own session and group. Platforms without an earlier way
   *     (none here: glibc 2.36 has no {@code posix_spawnattr_setcgroup_np}, and {@code
   *     clone3(CLONE_INTO_CGROUP)} cannot be called safely from a JVM) leave a window of
   *     microseconds between the child's exec and the move; {@code ProcessTree} closes it. A failed
   *     move ends the child and fails the spawn.
   * @throws NullPointerException if {@code treeCookie} or {@code cgroup} is {@code null}
   * @throws IllegalArgumentException if {@code treeCookie} is not 8-64 of [A-Za-z0-9._-], or {@code
   *     cgroup} is not a directory under the cgroup2 mount
   */
  public SpawnOptions {
    Objects.requireNonNull(treeCookie, "treeCookie");
    Objects.requireNonNull(cgroup, "cgroup");
    if (treeCookie.length() < 8
        || treeCookie.length() > 64
        || !Ascii.isWord(treeCookie, 0, "._-")) {
      throw new IllegalArgumentException(
          "treeCookie must be 8-64 characters of [A-Za-z0-9._-]: '" + treeCookie + "'");
    }
    // Absolute and normalized, so the platform's lookup by directory is exact.
    cgroup = cgroup.map(directory -> Cgroup.at(directory).path());
  }

  /**
   * Options without a cgroup.
   *
   * @param newSession start the child in a new session and process group of its own (the default;
   *     without it the child shares the JVM's group and cannot be signalled as a tree)
   * @param keepLeaderUnreaped observe the child's exit without reaping it, so its pid (and so its
   *     process group id) cannot be reused until {@link SupervisedProcess#reap()} is called. Tree
   *     handles use it to signal the group safely after the leader exited.
   * @param treeCookie a value exported as {@link #COOKIE_VARIABLE} to the child; descendants
   *     inherit it, so escapees that left the group (setsid, double fork) can still be found
   * @throws IllegalArgumentException if {@code treeCookie} is not 8-64 of [A-Za-z0-9._-]
   */
  public SpawnOptions(boolean newSession, boolean keepLeaderUnreaped, String treeCookie) {
    this(newSession, keepLeaderUnreaped, treeCookie, Optional.empty());
  }

  /**
   * New session, leader reaped on exit, a fresh random cookie, no cgroup.
   *
   * @return new options with a cookie of their own
   */
  public static SpawnOptions defaults() {
    return new SpawnOptions(true, false, newCookie());
  }

  /**
   * A fresh random cookie, unique per call.
   *
   * @return a random UUID in text form (36 characters), a valid cookie
   */
  public static String newCookie() {
    return dev.lifecycle.internal.Unguessable.uuid();
  }

  /**
   * A fresh cookie that names its owner ({@code lc1.<pid>.<start>.<boot id>.<random>}), so that a
   * tree left behind can be told from its owner's identity whether that owner is gone. When {@code
   * owner} is incomplete (no start time or boot id) it is a plain {@link #newCookie()}.
   *
   * @param owner the process that owns the tree, usually {@link ProcessPlatform#self()}
   * @return a valid cookie, unique per call
   */
  public static String newCookie(ProcessIdentity owner) {
    return TreeCookie.of(Objects.requireNonNull(owner, "owner"));
  }

  /**
   * The owner a cookie names, as {@link #newCookie(ProcessIdentity)} wrote it.
   *
   * @param cookie a tree cookie
   * @return the owner's pid, start time and boot id, or empty for a cookie that names none (one of
   *     {@link #newCookie()}, or of an older version of this library)
   */
  public static Optional<ProcessIdentity> cookieOwner(String cookie) {
    return TreeCookie.owner(cookie);
  }

  /**
   * A copy that does or does not start the child in a session of its own.
   *
   * @param value {@code false} to let the child share the JVM's session and group
   * @return new options; these are unchanged
   */
  public SpawnOptions withNewSession(boolean value) {
    return new SpawnOptions(value, keepLeaderUnreaped, treeCookie, cgroup);
  }

  /**
   * A copy that does or does not keep the child unreaped after its exit.
   *
   * @param value {@code true} to hold the pid until {@link SupervisedProcess#reap()}
   * @return new options; these are unchanged
   */
  public SpawnOptions withKeepLeaderUnreaped(boolean value) {
    return new SpawnOptions(newSession, value, treeCookie, cgroup);
  }

  /**
   * A copy with another tree cookie.
   *
   * @param value 8-64 of [A-Za-z0-9._-]
   * @return new options; these are unchanged
   * @throws IllegalArgumentException if {@code value} is not a valid cookie
   */
  public SpawnOptions withTreeCookie(String value) {
    return new SpawnOptions(newSession, keepLeaderUnreaped, value, cgroup);
  }

  /**
   * Moves the child into {@code value} right after the spawn call.
   *
   * @param value the directory of the cgroup to move the child into, e.g. {@code
   *     /sys/fs/cgroup/my.slice/job-1}
   * @return new options; these are unchanged
   * @throws IllegalArgumentException if {@code value} is not a directory under the cgroup2 mount
   */
  public SpawnOptions withCgroup(Path value) {
    return new SpawnOptions(
        newSession, keepLeaderUnreaped, treeCookie, Optional.of(Objects.requireNonNull(value)));
  }
}
