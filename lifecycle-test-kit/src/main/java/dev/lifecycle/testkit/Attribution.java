package dev.lifecycle.testkit;

/**
 * How a leak check decides which processes belong to the code it checks (the tier). A {@link
 * LeakReport} always names the tier that was in force, and why the stronger one was not.
 */
public enum Attribution {
  /** {@link #CGROUP} where a writable cgroup v2 hierarchy is available, else {@link #EVIDENCE}. */
  AUTO,
  /**
   * Exact (Linux cgroup v2): the checked code runs with this JVM inside a cgroup of its own, and
   * everything forked meanwhile (setsid, double fork, cleared environment, any daemon) is found in
   * it or its sub-cgroups; nothing outside it is blamed. Requested explicitly, a check fails fast
   * when no cgroup can be created.
   */
  CGROUP,
  /**
   * Evidence only: new processes are attributed on parentage, samples of this JVM's descendants,
   * the library's own record of the trees it spawned, environment markers and group or session
   * shared with attributed processes. A daemon that leaves all of these behind is missed.
   */
  EVIDENCE
}
