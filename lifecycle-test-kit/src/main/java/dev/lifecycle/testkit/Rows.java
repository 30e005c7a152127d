package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;

/** Row lookups: a full table (evidence tier) or per-pid reads (cgroup tier). */
interface Rows {
  /** How many parents a chain names at most. */
  int CHAIN_DEPTH = 8;

  Optional<ProcessInfo> get(long pid);

  String bootId();

  ProcessTable table();

  static Rows of(ProcessTable table) {
    return new Rows() {
      @Override
      public Optional<ProcessInfo> get(long pid) {
        return table.get(pid);
      }

      @Override
      public String bootId() {
        return table.bootId();
      }

      @Override
      public ProcessTable table() {
        return table;
      }
    };
  }

  /** Reads rows on demand, so a check costs O(members), not O(process table). */
  static Rows lazy(ProcessPlatform platform) {
    Map<Long, Optional<ProcessInfo>> cache = new HashMap<>();
    String boot = platform.self().bootId();
    return new Rows() {
      private ProcessTable table;

      @Override
      public Optional<ProcessInfo> get(long pid) {
        return cache.computeIfAbsent(pid, platform::info);
      }

      @Override
      public String bootId() {
        return boot;
      }

      @Override
      public ProcessTable table() {
        if (table == null) {
          // Only needed when something is declared shared: its parent chains.
          table =
              SharedProcesses.isEmpty() ? ProcessTable.of(List.of(), boot, 0) : platform.snapshot();
        }
        return table;
      }
    };
  }

  /**
   * The parents of {@code p} up to this JVM ({@code self}), each as "pid (command)", found through
   * {@code rows}; a parent {@code rows} does not know ends the chain, named "(gone)" when {@code
   * markGone}.
   */
  static List<String> chain(
      LongFunction<Optional<ProcessInfo>> rows, long self, ProcessInfo p, boolean markGone) {
    List<String> out = new ArrayList<>();
    long ppid = p.ppid();
    for (int i = 0; i < CHAIN_DEPTH && ppid > 0; i++) {
      if (ppid == self) {
        out.add(ppid + " (this JVM)");
        break;
      }
      Optional<ProcessInfo> parent = rows.apply(ppid);
      if (parent.isEmpty()) {
        if (markGone) {
          out.add(ppid + " (gone)");
        }
        break;
      }
      out.add(ppid + " (" + parent.get().command() + ")");
      ppid = parent.get().ppid();
    }
    return out;
  }
}
