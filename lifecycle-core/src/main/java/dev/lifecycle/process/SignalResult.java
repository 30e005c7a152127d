package dev.lifecycle.process;

/**
 * What happened when a signal was sent to a process or a process group. Immutable and thread-safe
 * (an enum).
 */
public enum SignalResult {
  /** The kernel accepted the signal for at least one process. */
  DELIVERED,
  /** No such process or group (ESRCH): nothing was signalled. */
  GONE,
  /** The target exists but we may not signal it (EPERM): nothing was signalled. */
  NOT_PERMITTED,
  /** The pid now belongs to a different process than the one recorded: nothing was signalled. */
  IDENTITY_MISMATCH
}
