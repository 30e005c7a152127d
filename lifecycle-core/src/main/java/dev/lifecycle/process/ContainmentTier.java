package dev.lifecycle.process;

/**
 * How strongly a process tree is contained, strongest first. Each tier names what it can prove.
 * Immutable and thread-safe (an enum).
 */
public enum ContainmentTier {
  /**
   * A cgroup v2 per tree: membership is the kernel's ({@code cgroup.procs}) and is inherited at
   * fork whatever the process does to its session, group, parent or environment, so setsid and
   * double-fork daemons, {@code env -i} and processes that rewrite their environment for a title
   * (redis, nginx, postgres) stay found; {@code cgroup.kill} ends them all atomically and {@code
   * cgroup.events populated 0} proves the tree empty. Not caught: a process that deliberately
   * writes itself into another cgroup it may write (a hostile same-user process in a delegated
   * sub-tree), and a process forked in the microseconds between the leader's exec and its move into
   * the cgroup that also left the tree's process group (see docs/ARCHITECTURE.md).
   */
  CGROUP,
  /**
   * Session + process group + parentage + the environment cookie: catches setsid and double-fork
   * escapees that keep their environment. Cannot see a process that left the session, lost its
   * parent (re-parented to init) and carries no readable cookie (a daemon that rewrote its
   * environment area for a process title, {@code env -i}), so no report of this tier is complete:
   * each names that blind spot first in {@code unprovable()}, then every process it saw but could
   * not rule out (an empty or rewritten environment started after the tree).
   */
  SESSION
}
