package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import java.util.HashSet;
import java.util.Set;

/**
 * The process table when an evidence-tier check started: what ran then is never blamed.
 *
 * @param self this JVM's pid
 * @param selfGroup this JVM's process group
 * @param selfSession this JVM's session, -1 when unknown
 * @param keys every process that ran
 * @param pids their pids
 * @param privateGroup whether only this JVM, its ancestors and its descendants were in its group
 */
record Baseline(
    long self,
    long selfGroup,
    long selfSession,
    Set<ProcessKey> keys,
    Set<Long> pids,
    boolean privateGroup) {

  static Baseline take(ProcessPlatform platform) {
    long self = platform.self().pid();
    long selfGroup = platform.selfProcessGroup();
    ProcessTable table = platform.snapshot();
    Set<ProcessKey> keys = new HashSet<>();
    Set<Long> pids = new HashSet<>();
    for (ProcessInfo p : table.all()) {
      keys.add(ProcessKey.of(p));
      pids.add(p.pid());
    }
    return new Baseline(
        self,
        selfGroup,
        table.get(self).map(ProcessInfo::sid).orElse(-1L),
        Set.copyOf(keys),
        Set.copyOf(pids),
        isPrivateGroup(table, self, selfGroup));
  }

  boolean contains(ProcessKey key) {
    return keys.contains(key);
  }

  /**
   * Whether, at the baseline, only this JVM, its ancestors and its descendants were in its group:
   * then an orphan joining it later is ours. Under surefire with several forks (or any parent that
   * runs other programs in its group) it is shared, and membership is no evidence.
   */
  private static boolean isPrivateGroup(ProcessTable table, long self, long selfGroup) {
    if (selfGroup <= 1) {
      return false;
    }
    Set<Long> ours = new HashSet<>();
    ours.add(self);
    table.descendants(self).forEach(p -> ours.add(p.pid()));
    for (long at = table.get(self).map(ProcessInfo::ppid).orElse(0L); at > 1; ) {
      ours.add(at);
      at = table.get(at).map(ProcessInfo::ppid).orElse(0L);
    }
    for (ProcessInfo p : table.group(selfGroup)) {
      if (!p.hasExited() && !ours.contains(p.pid())) {
        return false;
      }
    }
    return true;
  }
}
