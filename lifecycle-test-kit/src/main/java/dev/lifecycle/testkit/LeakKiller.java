package dev.lifecycle.testkit;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.Signal;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Kills the leaks of a report and lists every kill: what the tier kills at once first ({@link
 * AttributionTier#killFirst}), then identity-checked SIGKILL (whole groups at once when the
 * platform can and every live member is a leak), re-scanning up to a few rounds for children forked
 * while dying; then lets the library finish its trees and verifies within a bound.
 */
final class LeakKiller {
  /** Bound on the cleanup: SIGKILL ends a process in milliseconds; the rest covers a busy box. */
  static final Duration KILL_VERIFY = Duration.ofSeconds(5);

  /** Rounds of kill-and-rescan: a forking leak may start children while being killed. */
  private static final int KILL_ROUNDS = 5;

  private final ProcessPlatform platform;
  private final AttributionTier tier;
  private final LibraryTrees trees;
  private final Supplier<List<LeakedProcess>> find;

  LeakKiller(
      LeakOptions options,
      AttributionTier tier,
      LibraryTrees trees,
      Supplier<List<LeakedProcess>> find) {
    this.platform = options.platform();
    this.tier = tier;
    this.trees = trees;
    this.find = find;
  }

  LeakReport kill(LeakReport report) {
    List<KilledProcess> kills = new ArrayList<>();
    Map<Long, ProcessIdentity> all = new LinkedHashMap<>();
    Map<Long, String> commands = new HashMap<>();
    for (LeakedProcess leak : report.leaks()) {
      all.put(leak.pid(), leak.identity());
      commands.put(leak.pid(), leak.commandLine());
    }
    Map<Long, ProcessIdentity> targets = new LinkedHashMap<>(all);
    List<ProcessTree> leaking = trees.touching(all.keySet());
    tier.killFirst(targets, commands, kills, find);
    for (int round = 0; round < KILL_ROUNDS && !targets.isEmpty(); round++) {
      ProcessTable table = platform.snapshot();
      Map<Long, String> how = killGroups(table, targets.keySet());
      for (Map.Entry<Long, ProcessIdentity> t : targets.entrySet()) {
        platform.signal(t.getValue(), Signal.KILL);
        kills.add(
            new KilledProcess(
                t.getValue(),
                commands.getOrDefault(t.getKey(), "?"),
                how.getOrDefault(t.getKey(), "SIGKILL (identity-checked)"),
                round > 0));
      }
      Map<Long, ProcessIdentity> killed = new LinkedHashMap<>(targets);
      Polling.until(
          KILL_VERIFY.dividedBy(KILL_ROUNDS),
          () -> killed.values().stream().allMatch(id -> platform.probe(id) != Liveness.ALIVE));
      targets.clear();
      for (LeakedProcess again : find.get()) {
        if (!all.containsKey(again.pid())) {
          targets.put(again.pid(), again.identity());
          all.put(again.pid(), again.identity());
          commands.put(again.pid(), again.commandLine());
        }
      }
    }
    endTrees(leaking, all.keySet(), kills);
    List<Long> survivors = new ArrayList<>();
    for (Map.Entry<Long, ProcessIdentity> e : all.entrySet()) {
      if (platform.probe(e.getValue()) == Liveness.ALIVE) {
        survivors.add(e.getKey());
      }
    }
    survivors.addAll(targets.keySet());
    return report.afterKills(kills, survivors.stream().distinct().toList());
  }

  /**
   * Lets the library finish the trees whose processes were killed: reaps their leaders and removes
   * what the library set up for them. Anything it still had to signal is listed.
   */
  private static void endTrees(
      List<ProcessTree> leaking, Set<Long> killed, List<KilledProcess> kills) {
    for (ProcessTree tree : leaking) {
      TerminationReport r = tree.terminate(Duration.ZERO);
      Set<Long> signalled = new HashSet<>(r.terminated());
      signalled.addAll(r.killed());
      for (long pid : signalled) {
        if (!killed.contains(pid) && pid != tree.leaderIdentity().pid()) {
          kills.add(
              new KilledProcess(
                  ProcessIdentity.ofPid(pid), "?", "ProcessTree.terminate of " + tree, true));
        }
      }
    }
  }

  private Map<Long, String> killGroups(ProcessTable table, Set<Long> leaks) {
    Map<Long, String> how = new HashMap<>();
    if (!platform.capabilities().groupSignals()) {
      return how;
    }
    long selfGroup = platform.selfProcessGroup();
    Set<Long> groups = new HashSet<>();
    for (long pid : leaks) {
      table.get(pid).map(ProcessInfo::pgid).ifPresent(groups::add);
    }
    for (long pgid : groups) {
      if (pgid <= 1 || pgid == selfGroup) {
        continue;
      }
      List<ProcessInfo> members = table.group(pgid).stream().filter(p -> !p.hasExited()).toList();
      boolean allLeaks = members.stream().allMatch(p -> leaks.contains(p.pid()));
      if (allLeaks) {
        try {
          platform.signalGroup(pgid, Signal.KILL);
          members.forEach(p -> how.put(p.pid(), "killpg " + pgid + " (every member a leak)"));
        } catch (RuntimeException e) {
          // per-process kills below still run
        }
      }
    }
    return how;
  }
}
