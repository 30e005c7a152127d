package dev.lifecycle.inventory;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessState;
import java.util.Objects;

/**
 * One live process of a found tree. Immutable and thread-safe.
 *
 * @param identity pid, start time and boot id
 * @param ppid the parent's pid
 * @param state the scheduler state at the first look
 * @param command the command line (or the short command name when it cannot be read)
 * @param cpuShare CPU time used over the inventory's window as a share of one core ({@code 1.0} =
 *     one core busy), or {@code -1} when not measured (no window, or the process exited meanwhile)
 * @param residentBytes resident memory (RSS) in bytes, or {@code -1} when unknown
 */
public record Member(
    ProcessIdentity identity,
    long ppid,
    ProcessState state,
    String command,
    double cpuShare,
    long residentBytes) {

  /**
   * Checks the components.
   *
   * @param identity pid, start time and boot id
   * @param ppid the parent's pid
   * @param state the scheduler state
   * @param command the command line
   * @param cpuShare the CPU share, or {@code -1}
   * @param residentBytes RSS in bytes, or {@code -1}
   * @throws NullPointerException if a component is {@code null}
   */
  public Member {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(command, "command");
  }

  /**
   * The process id.
   *
   * @return {@code identity().pid()}
   */
  public long pid() {
    return identity.pid();
  }
}
