package dev.lifecycle.tree;

/** How a process was found to belong to a tree. Immutable and thread-safe (an enum). */
public enum Discovery {
  /** The tree's leader itself. */
  LEADER,
  /** A member of the tree's process group. */
  GROUP,
  /** A member of the tree's session (it may have moved to another group). */
  SESSION,
  /** A descendant by parent pid of the leader or of a process seen in the tree before. */
  PARENTAGE,
  /** It carries the tree's cookie in its environment (survives setsid and double fork). */
  COOKIE,
  /**
   * It is in the tree's cgroup (CGROUP tier): inherited at fork, whatever the process did to its
   * session, group, parent or environment.
   */
  CGROUP
}
