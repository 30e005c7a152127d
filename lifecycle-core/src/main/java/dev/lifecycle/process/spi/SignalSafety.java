package dev.lifecycle.process.spi;

import dev.lifecycle.process.UnsafeSignalException;

/**
 * The checks every signal passes before a system call, for {@link
 * dev.lifecycle.process.ProcessPlatform} implementations (lifecycle's own: the pure-JDK fallback
 * and lifecycle-posix). A platform that skips them could signal init, every process of the user
 * (pid -1), or the JVM's own group. Thread-safe (static methods only).
 */
public final class SignalSafety {
  private SignalSafety() {}

  /**
   * Refuses pids that address more than one process or a process that is never ours.
   *
   * @param pid the pid about to be signalled
   * @throws UnsafeSignalException if {@code pid <= 1} or above the kernel's pid range
   */
  public static void checkPid(long pid) {
    if (pid <= 1) {
      throw new UnsafeSignalException(
          "refusing to signal pid "
              + pid
              + ": pids <= 1 address init, the caller's group or every process");
    }
    if (pid > Integer.MAX_VALUE) {
      throw new UnsafeSignalException("refusing to signal pid " + pid + ": out of range");
    }
  }

  /**
   * Refuses group ids {@code <= 1} and the group the JVM belongs to (ending our own group is
   * self-termination, a separate and explicit operation).
   *
   * @param pgid the process group about to be signalled
   * @param selfPgid the JVM's own process group
   * @throws UnsafeSignalException if {@code pgid <= 1}, out of range or the JVM's group
   */
  public static void checkGroup(long pgid, long selfPgid) {
    if (pgid <= 1) {
      throw new UnsafeSignalException(
          "refusing to signal process group " + pgid + ": groups <= 1 are never ours");
    }
    if (pgid > Integer.MAX_VALUE) {
      throw new UnsafeSignalException(
          "refusing to signal process group " + pgid + ": out of range");
    }
    if (pgid == selfPgid) {
      throw new UnsafeSignalException(
          "refusing to signal process group "
              + pgid
              + ": it contains this JVM (use self-termination to end our own group)");
    }
  }
}
