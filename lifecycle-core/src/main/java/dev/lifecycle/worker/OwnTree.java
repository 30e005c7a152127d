package dev.lifecycle.worker;

import dev.lifecycle.guard.Breach;
import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.guard.Enforcement;
import dev.lifecycle.guard.watchdog.Watchdog;
import dev.lifecycle.guard.watchdog.Watched;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.cgroup.CgroupCeilings;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A worker's own process tree as the watchdog sees it: this JVM, its session or group when it leads
 * one (as a worker started as a tree does), and every descendant by parentage, the members the
 * worker's self-termination ends. A breach is handed to the worker, which records it and ends the
 * tree itself. Thread-safe: stateless between samples.
 */
final class OwnTree implements Watched {
  private final long self;
  private final String label;
  private final Consumer<Breach> onBreach;

  /** Has the shared watchdog hold this JVM's own tree to {@code ceilings}. */
  static Watchdog.Registration watch(
      ProcessPlatform platform, Ceilings ceilings, String jobId, Consumer<Breach> onBreach) {
    long self = platform.self().pid();
    return Watchdog.shared()
        .watch(
            new OwnTree(self, "worker " + jobId + " (" + self + ")", onBreach),
            platform,
            ceilings,
            new Enforcement(
                Set.of(),
                CgroupCeilings.enabledKinds(ceilings),
                "a worker's own tree: the watchdog"));
  }

  OwnTree(long self, String label, Consumer<Breach> onBreach) {
    this.self = self;
    this.label = label;
    this.onBreach = onBreach;
  }

  @Override
  public boolean needsTable() {
    return true;
  }

  @Override
  public List<ProcessInfo> members(ProcessTable table) {
    ProcessInfo me = table.get(self).orElse(null);
    if (me == null) {
      return List.of();
    }
    boolean leadsSession = me.sid() == self;
    boolean leadsGroup = me.pgid() == self;
    Map<Long, ProcessInfo> found = new LinkedHashMap<>();
    Map<Long, List<ProcessInfo>> byParent = new HashMap<>();
    found.put(self, me);
    for (ProcessInfo row : table.all()) {
      if (row.pid() <= 1) {
        continue;
      }
      byParent.computeIfAbsent(row.ppid(), k -> new ArrayList<>()).add(row);
      if ((leadsSession && row.sid() == self) || (leadsGroup && row.pgid() == self)) {
        found.put(row.pid(), row);
      }
    }
    ArrayDeque<Long> roots = new ArrayDeque<>(found.keySet());
    while (!roots.isEmpty()) {
      for (ProcessInfo child : byParent.getOrDefault(roots.poll(), List.of())) {
        if (found.putIfAbsent(child.pid(), child) == null) {
          roots.add(child.pid());
        }
      }
    }
    List<ProcessInfo> out = new ArrayList<>(found.size());
    for (ProcessInfo row : found.values()) {
      if (!row.hasExited()) {
        out.add(row);
      }
    }
    return out;
  }

  @Override
  public long cumulativeCpuNanos() {
    return -1;
  }

  @Override
  public Breach kernelBreach() {
    return null;
  }

  @Override
  public void end(Breach breach) {
    onBreach.accept(breach);
  }

  @Override
  public String label() {
    return label;
  }
}
