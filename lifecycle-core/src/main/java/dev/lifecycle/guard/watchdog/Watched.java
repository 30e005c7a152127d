package dev.lifecycle.guard.watchdog;

import dev.lifecycle.guard.Breach;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessTable;
import java.io.IOException;
import java.util.List;

/**
 * What the watchdog reads from and does to one tree. Implementations are thread-safe: the sampler
 * thread calls them while the tree's owner uses the tree.
 */
public interface Watched {
  /**
   * Whether {@link #members} needs the tick's shared process-table snapshot (trees found by a scan)
   * or reads its own members (a cgroup's {@code cgroup.procs}).
   *
   * @return {@code true} if a snapshot must be passed
   */
  boolean needsTable();

  /**
   * The live (non-zombie) members now.
   *
   * @param table the tick's shared snapshot when {@link #needsTable()}, else {@code null}
   * @return the members; empty once the whole tree is gone
   * @throws IOException if the members cannot be read (the tick is skipped for this tree)
   */
  List<ProcessInfo> members(ProcessTable table) throws IOException;

  /**
   * The live members' pids, where the tree lists them without reading each process (a cgroup's
   * {@code cgroup.procs}); the sampler then reads a member's own row only when a rule needs it.
   *
   * @return the pids, empty once the whole tree is gone; {@code null} when only {@link #members}
   *     can tell (the sampler then calls it)
   * @throws IOException if the members cannot be read (the tick is skipped for this tree)
   */
  default List<Long> memberPids() throws IOException {
    return null;
  }

  /**
   * CPU time of the whole tree since it started, dead members included, where the kernel keeps it
   * (a cgroup's {@code cpu.stat}).
   *
   * @return nanoseconds, or {@code -1} when only the live members' times are known
   */
  long cumulativeCpuNanos();

  /**
   * A breach the kernel enforced since the last call (a cgroup's {@code memory.events oom_kill} or
   * {@code pids.events max} went up).
   *
   * @return the breach, or {@code null} when the kernel stopped nothing
   */
  Breach kernelBreach();

  /**
   * Ends the tree through its staged termination, with {@code breach} as the report's reason.
   * Returns at once.
   *
   * @param breach what the watchdog measured
   */
  void end(Breach breach);

  /**
   * The watch has ended (the tree is gone or ended, or the registration was closed): release what
   * the samples kept open. Called once, on the sampler thread.
   */
  default void unwatched() {}

  /**
   * The tree for logs: leader pid and command.
   *
   * @return e.g. {@code 4711 (sh -c while :; do :; done)}
   */
  String label();
}
