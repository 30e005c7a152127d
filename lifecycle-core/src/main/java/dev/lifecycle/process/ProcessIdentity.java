package dev.lifecycle.process;

import java.util.Objects;

/**
 * Who a process is, not just where it lives: a pid is reused within seconds under churn, so a
 * process is identified by (pid, start time, boot id). Two identities name the same process only
 * when all three match; when either side lacks a part, the answer is {@link Match#UNKNOWN}, never
 * "different" (unknown identity must not be mistaken for proof of a different process). Immutable
 * and thread-safe.
 *
 * <p>{@code startTime} is in platform units and only comparable within one platform: clock ticks
 * since boot on Linux ({@code /proc/<pid>/stat} field 22), microseconds since the epoch on macOS,
 * epoch milliseconds from {@link ProcessHandle.Info#startInstant()} in the pure-JDK fallback. It is
 * never converted to wall-clock time for comparison.
 *
 * @param pid the process id, greater than zero
 * @param startTime the start time in platform units, or {@link #UNKNOWN_START}
 * @param bootId the identifier of the boot the process started in, or {@code ""} when unknown
 */
public record ProcessIdentity(long pid, long startTime, String bootId) {

  /** The value of {@link #startTime()} when the start time could not be read. */
  public static final long UNKNOWN_START = -1;

  /** The result of comparing two identities. */
  public enum Match {
    /** All parts known and equal: the same process. */
    SAME,
    /** A known part differs: a different process (the pid was reused, or another boot). */
    DIFFERENT,
    /** Not enough known to decide; treat as "maybe the same", never as different. */
    UNKNOWN
  }

  /**
   * Checks the parts.
   *
   * @param pid the process id, greater than zero
   * @param startTime the start time in platform units, or {@link #UNKNOWN_START}
   * @param bootId the identifier of the boot the process started in, or {@code ""} when unknown
   * @throws IllegalArgumentException if {@code pid} is not positive or {@code startTime} is below
   *     {@link #UNKNOWN_START}
   * @throws NullPointerException if {@code bootId} is {@code null}
   */
  public ProcessIdentity {
    if (pid <= 0) {
      throw new IllegalArgumentException("pid must be positive: " + pid);
    }
    if (startTime < UNKNOWN_START) {
      throw new IllegalArgumentException("startTime must be >= 0 or UNKNOWN_START: " + startTime);
    }
    Objects.requireNonNull(bootId, "bootId");
  }

  /**
   * An identity of which only the pid is known.
   *
   * @param pid the process id, positive
   * @return an identity with {@link #UNKNOWN_START} and an empty boot id
   */
  public static ProcessIdentity ofPid(long pid) {
    return new ProcessIdentity(pid, UNKNOWN_START, "");
  }

  /**
   * Whether both the start time and the boot id are known.
   *
   * @return {@code true} if a {@link #match} with another complete identity can answer SAME
   */
  public boolean isComplete() {
    return startTime != UNKNOWN_START && !bootId.isEmpty();
  }

  /**
   * Compares this recorded identity with an observed one.
   *
   * @param observed the identity read now
   * @return DIFFERENT if the pid or a known part differs, SAME if every part is known and equal,
   *     else UNKNOWN
   */
  public Match match(ProcessIdentity observed) {
    if (pid != observed.pid) {
      return Match.DIFFERENT;
    }
    if (!bootId.isEmpty() && !observed.bootId.isEmpty() && !bootId.equals(observed.bootId)) {
      return Match.DIFFERENT;
    }
    if (startTime != UNKNOWN_START && observed.startTime != UNKNOWN_START) {
      if (startTime != observed.startTime) {
        return Match.DIFFERENT;
      }
      return bootId.isEmpty() || observed.bootId.isEmpty() ? Match.UNKNOWN : Match.SAME;
    }
    return Match.UNKNOWN;
  }

  // Written out: a record's generated equals and hashCode bootstrap method handles on first use,
  // and a tree's termination hashes identities.
  @Override
  public boolean equals(Object other) {
    return other instanceof ProcessIdentity that
        && pid == that.pid
        && startTime == that.startTime
        && bootId.equals(that.bootId);
  }

  @Override
  public int hashCode() {
    return (Long.hashCode(pid) * 31 + Long.hashCode(startTime)) * 31 + bootId.hashCode();
  }
}
