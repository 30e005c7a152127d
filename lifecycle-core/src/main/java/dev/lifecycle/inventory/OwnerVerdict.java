package dev.lifecycle.inventory;

/** What is known of a tree's owner, on proof only. Immutable and thread-safe (an enum). */
public enum OwnerVerdict {
  /** The owner runs: its pid names a process with the recorded start time. */
  ALIVE,
  /**
   * Proven gone: no process at its pid, a zombie, a process with another start time at its pid, or
   * a recorded boot id that is not this boot's.
   */
  GONE,
  /**
   * Neither can be proven: the tree names no owner (a cookie of an older version, set by hand) or
   * the owner's process cannot be read (another user's, {@code hidepid}).
   */
  NOT_PROVABLE
}
