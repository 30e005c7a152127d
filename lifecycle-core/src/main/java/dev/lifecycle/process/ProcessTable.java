package dev.lifecycle.process;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * An immutable snapshot of the process table taken in one pass. Queries never go back to the
 * kernel, so they are consistent with each other (and may be stale a moment later). Thread-safe.
 */
public final class ProcessTable {
  private final Map<Long, ProcessInfo> byPid;
  private final Map<Long, List<ProcessInfo>> childrenByPpid;
  private final String bootId;
  private final long takenAtNanos;

  private ProcessTable(List<ProcessInfo> rows, String bootId, long takenAtNanos) {
    Map<Long, ProcessInfo> pids = new LinkedHashMap<>();
    Map<Long, List<ProcessInfo>> children = new HashMap<>();
    for (ProcessInfo row : rows) {
      pids.put(row.pid(), row);
      List<ProcessInfo> siblings = children.get(row.ppid());
      if (siblings == null) {
        siblings = new ArrayList<>();
        children.put(row.ppid(), siblings);
      }
      siblings.add(row);
    }
    this.byPid = Collections.unmodifiableMap(pids);
    this.childrenByPpid = children;
    this.bootId = bootId;
    this.takenAtNanos = takenAtNanos;
  }

  /**
   * Creates a snapshot from rows read in one pass.
   *
   * @return the immutable snapshot
   * @param rows the processes, each pid at most once
   * @param bootId the boot the rows belong to, {@code ""} when unknown
   * @param takenAtNanos {@link System#nanoTime()} when the pass started
   */
  public static ProcessTable of(List<ProcessInfo> rows, String bootId, long takenAtNanos) {
    return new ProcessTable(List.copyOf(rows), bootId, takenAtNanos);
  }

  /**
   * Every process in the snapshot, in the order read.
   *
   * @return the rows, unmodifiable
   */
  public List<ProcessInfo> all() {
    return List.copyOf(byPid.values());
  }

  /**
   * How many processes the snapshot holds.
   *
   * @return the number of rows
   */
  public int size() {
    return byPid.size();
  }

  /**
   * The row of {@code pid}.
   *
   * @param pid the process id
   * @return its row, or empty when the process was not in the snapshot
   */
  public Optional<ProcessInfo> get(long pid) {
    return Optional.ofNullable(byPid.get(pid));
  }

  /**
   * The boot id shared by every row, {@code ""} when unknown.
   *
   * @return the boot id
   */
  public String bootId() {
    return bootId;
  }

  /**
   * {@link System#nanoTime()} when the snapshot was started.
   *
   * @return the {@code nanoTime} value; compare it with other {@code nanoTime} values only
   */
  public long takenAtNanos() {
    return takenAtNanos;
  }

  /**
   * The identity of a process in this snapshot, if present.
   *
   * @param pid the process id
   * @return pid, start time and the snapshot's boot id, or empty when absent
   */
  public Optional<ProcessIdentity> identity(long pid) {
    ProcessInfo row = byPid.get(pid);
    return row == null ? Optional.empty() : Optional.of(row.identity(bootId));
  }

  /**
   * Direct children of {@code pid}.
   *
   * @param pid the parent's pid
   * @return the rows whose parent is {@code pid}
   */
  public List<ProcessInfo> children(long pid) {
    return List.copyOf(childrenByPpid.getOrDefault(pid, List.of()));
  }

  /**
   * All descendants of {@code pid} by parentage, breadth first (re-parented ones are lost).
   *
   * @param pid the ancestor's pid
   * @return children, grandchildren and so on, {@code pid} itself excluded
   */
  public List<ProcessInfo> descendants(long pid) {
    List<ProcessInfo> out = new ArrayList<>();
    Deque<Long> queue = new ArrayDeque<>();
    queue.add(pid);
    while (!queue.isEmpty()) {
      for (ProcessInfo child : childrenByPpid.getOrDefault(queue.poll(), List.of())) {
        if (child.pid() != pid) {
          out.add(child);
          queue.add(child.pid());
        }
      }
    }
    return out;
  }

  /**
   * Members of process group {@code pgid}, including exited (zombie) ones.
   *
   * @param pgid the process group id
   * @return the rows with that pgid
   */
  public List<ProcessInfo> group(long pgid) {
    return filter(p -> p.pgid() == pgid);
  }

  /**
   * Members of session {@code sid}, including exited (zombie) ones.
   *
   * @param sid the session id
   * @return the rows with that sid
   */
  public List<ProcessInfo> session(long sid) {
    return filter(p -> p.sid() == sid);
  }

  /**
   * The rows {@code predicate} accepts, in the order read.
   *
   * @param predicate the test
   * @return the matching rows, unmodifiable
   */
  public List<ProcessInfo> filter(Predicate<? super ProcessInfo> predicate) {
    return byPid.values().stream().filter(predicate).toList();
  }

  @Override
  public String toString() {
    return "ProcessTable[" + byPid.size() + " processes]";
  }
}
