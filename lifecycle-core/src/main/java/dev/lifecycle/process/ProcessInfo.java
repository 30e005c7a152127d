package dev.lifecycle.process;

import java.time.Duration;
import java.util.Objects;

/**
 * One row of a {@link ProcessTable}: what the kernel said about a process at snapshot time. Fields
 * a platform cannot read are {@code -1} (ids, resident memory) or {@link Duration#ZERO} (CPU time).
 * Immutable and thread-safe.
 *
 * @param pid the process id
 * @param ppid the parent's pid
 * @param pgid the process group id
 * @param sid the session id
 * @param startTime the start time in platform units (see {@link ProcessIdentity#startTime()})
 * @param state the scheduler state
 * @param cpuTime user plus system CPU time consumed so far
 * @param command the short command name (Linux {@code comm}), possibly truncated by the kernel
 * @param residentBytes resident memory (RSS) in bytes, {@code -1} when the platform cannot read it
 */
public record ProcessInfo(
    long pid,
    long ppid,
    long pgid,
    long sid,
    long startTime,
    ProcessState state,
    Duration cpuTime,
    String command,
    long residentBytes) {

  /**
   * Checks the components.
   *
   * @param pid the process id
   * @param ppid the parent's pid
   * @param pgid the process group id
   * @param sid the session id
   * @param startTime the start time in platform units (see {@link ProcessIdentity#startTime()})
   * @param state the scheduler state
   * @param cpuTime user plus system CPU time consumed so far
   * @param command the short command name (Linux {@code comm}), possibly truncated by the kernel
   * @param residentBytes resident memory (RSS) in bytes, {@code -1} when unknown
   * @throws NullPointerException if {@code state}, {@code cpuTime} or {@code command} is {@code
   *     null}
   */
  public ProcessInfo {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(cpuTime, "cpuTime");
    Objects.requireNonNull(command, "command");
    if (residentBytes < -1) {
      throw new IllegalArgumentException(
          "residentBytes must be -1 (unknown) or more: " + residentBytes);
    }
  }

  /**
   * The identity of this process within the given boot.
   *
   * @param bootId the boot id of the snapshot, {@code ""} when unknown
   * @return pid, start time and {@code bootId}
   */
  public ProcessIdentity identity(String bootId) {
    return new ProcessIdentity(pid, startTime, bootId);
  }

  /**
   * Whether the process has exited and only awaits reaping: never counts as alive.
   *
   * @return {@code true} if the state is zombie or dead
   */
  public boolean hasExited() {
    return state.hasExited();
  }
}
