package dev.lifecycle.tree;

import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.cgroup.Cgroup;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One termination of a CGROUP-tier tree: membership is the kernel's, so no process-table scan.
 *
 * <pre>
 * members (cgroup.procs, recursive) -> TERM + CONT (group while pinned, others by identity)
 *   -> grace: wait for populated 0 (inotify) -> [freeze] -> cgroup.kill (+ group KILL while pinned)
 *   -> verify: populated 0 within the bound -> reap the leader -> rmdir the cgroup
 * </pre>
 *
 * The group is signalled too (only while the leader pins its id) because it reaches any process
 * forked between the leader's exec and its move that the entry check could not move. Single use.
 */
final class CgroupTermination {
  private static final LazyLogger LOG = LazyLogger.of(CgroupTermination.class);

  private final ProcessPlatform platform;
  private final Cgroup cgroup;
  private final SupervisedProcess leader;
  private final long groupId;
  private final Duration grace;
  private final TreeOptions options;
  private final String tierReason;
  private final String leaderText;
  private final Signaller signaller;
  private long termSentAt;
  // Every member read (TERM walk, kill): the processes whose zombies a JVM that is PID 1 reaps.
  private final Set<ProcessIdentity> seen = new HashSet<>();
  private final Map<Long, TreeMember> escapees = new LinkedHashMap<>();
  private boolean interrupted;

  CgroupTermination(
      ProcessPlatform platform,
      Cgroup cgroup,
      SupervisedProcess leader,
      boolean groupSignals,
      Duration grace,
      TreeOptions options,
      String tierReason,
      String leaderText) {
    this.platform = platform;
    this.cgroup = cgroup;
    this.leader = leader;
    this.groupId = leader.processGroupId();
    this.grace = TreeOptions.check(grace, "grace");
    this.options = options;
    this.tierReason = tierReason;
    this.leaderText = leaderText;
    this.signaller = new Signaller(platform, leader.identity(), groupId, groupSignals);
  }

  TerminationReport run() {
    long started = System.nanoTime();
    TerminationReport.Stage stage;
    List<TreeMember> survivors = List.of();
    try {
      if (!populated()) {
        stage = TerminationReport.Stage.ALREADY_GONE;
      } else {
        signalAll(Signal.TERM);
        // The grace runs from the first TERM (as in the SESSION tier): the walk that names and
        // signals members outside the group overlaps the grace instead of extending it.
        Duration left = grace.minusNanos(System.nanoTime() - termSentAt);
        boolean empty =
            !grace.isZero() && awaitEmpty(left.isNegative() ? Duration.ZERO : left, true);
        if (empty) {
          stage = TerminationReport.Stage.TERM;
        } else if (!populated()) {
          stage = TerminationReport.Stage.TERM; // grace 0, and the TERM alone emptied it
        } else {
          stage = TerminationReport.Stage.KILL;
          kill();
          if (!awaitEmpty(options.verifyTimeout(), false)) {
            survivors = survivors();
          }
        }
      }
    } catch (RuntimeException e) {
      // Anything unexpected: still end in cgroup.kill and the verification.
      signaller.problem("termination: " + e);
      stage = TerminationReport.Stage.KILL;
      try {
        kill();
        if (!awaitEmpty(options.verifyTimeout(), false)) {
          survivors = survivors();
        }
      } catch (RuntimeException again) {
        signaller.problem("kill: " + again);
        survivors = survivors();
      }
    }
    signaller.reap(leader);
    // An already empty cgroup is being removed by the tree's populated-0 handler (CgroupRemoval):
    // its rmdir waits for the kernel's cgroup lock, which a close of an exited tree need not.
    if (survivors.isEmpty() && stage != TerminationReport.Stage.ALREADY_GONE) {
      remove();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return signaller.report(
        stage,
        new ArrayList<>(escapees.values()),
        survivors,
        started,
        ContainmentTier.CGROUP,
        tierReason,
        List.of(),
        leaderText);
  }

  /**
   * The identities of the members this termination read, for {@link AdoptedZombies}; never the
   * leader, whose exit status belongs to its own waiter.
   */
  Set<ProcessIdentity> seen() {
    Set<ProcessIdentity> out = new HashSet<>();
    for (ProcessIdentity id : seen) { // a loop, not removeIf: no lambda on an exited tree's close
      if (id.pid() != leader.pid()) {
        out.add(id);
      }
    }
    return Set.copyOf(out);
  }

  private boolean populated() {
    try {
      return cgroup.isPopulated();
    } catch (IOException e) {
      signaller.problem(e.getMessage());
      return true; // unknown: act as if something were left
    }
  }

  /** TERM or KILL to the group (while pinned) and to every member outside it, by identity. */
  private void signalAll(Signal signal) {
    // Rows first: a member the group signal ends at once is still named in the report.
    List<ProcessInfo> rows = new ArrayList<>();
    for (long pid : members()) {
      platform.info(pid).filter(row -> !row.hasExited()).ifPresent(rows::add);
    }
    if (signal == Signal.TERM) {
      termSentAt = System.nanoTime();
    }
    boolean grouped = signaller.group(signal);
    if (signal == Signal.TERM && grouped) {
      signaller.group(Signal.CONT);
    }
    String boot = platform.self().bootId();
    for (ProcessInfo row : rows) {
      long pid = row.pid();
      seen.add(row.identity(boot));
      if (row.pgid() != groupId) {
        escapees.putIfAbsent(pid, TreeMember.of(row, boot, cgroupFound()));
      }
      if (grouped && row.pgid() == groupId) {
        signaller.sent(pid, signal);
        continue;
      }
      ProcessIdentity identity = row.identity(boot);
      if (signaller.one(identity, signal) == SignalResult.DELIVERED && signal == Signal.TERM) {
        signaller.one(identity, Signal.CONT); // without SIGCONT, cgroup.kill ends stopped ones
      }
    }
  }

  private void kill() {
    Set<Long> members = members();
    noteEscapees(members);
    if (options.freezeBeforeKill()) {
      try {
        cgroup.freeze(); // a fork storm stops forking; SIGKILL still ends frozen processes
      } catch (IOException e) {
        if (cgroup.exists()) { // else emptied and removed meanwhile: nothing was left to freeze
          signaller.problem(e.getMessage());
        }
      }
    }
    try {
      if (!cgroup.exists()) {
        return; // emptied and removed (by the tree's onExit) since the last look
      }
      cgroup.kill();
      for (long pid : members) {
        signaller.sent(pid, Signal.KILL);
      }
    } catch (IOException e) {
      if (!cgroup.exists()) {
        return;
      }
      signaller.problem(e.getMessage());
      for (long pid : members) { // no cgroup.kill: one by one, by identity
        platform.identify(pid).ifPresent(id -> signaller.one(id, Signal.KILL));
      }
    }
    signaller.group(Signal.KILL); // a window fork that stayed outside the cgroup but in the group
  }

  /** Members outside the tree's group (setsid, another group) go into the report as escapees. */
  private void noteEscapees(Set<Long> members) {
    String boot = platform.self().bootId();
    for (long pid : members) {
      if (escapees.containsKey(pid) || signaller.wasSent(pid)) {
        continue; // named by the TERM walk: no second read before the kill
      }
      platform
          .info(pid)
          .filter(row -> !row.hasExited())
          .map(
              row -> {
                seen.add(row.identity(boot));
                return row;
              })
          .filter(row -> row.pgid() != groupId)
          .ifPresent(row -> escapees.put(pid, TreeMember.of(row, boot, cgroupFound())));
    }
  }

  private Set<Long> members() {
    try {
      return cgroup.members();
    } catch (IOException e) {
      signaller.problem(e.getMessage());
      return Set.of();
    }
  }

  /**
   * Waits for {@code populated 0} by notification.
   *
   * @param stopOnInterrupt an interrupt during the grace goes straight to the kill
   */
  private boolean awaitEmpty(Duration timeout, boolean stopOnInterrupt) {
    var empty = cgroup.onEmpty();
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        try {
          empty.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          return true;
        } catch (InterruptedException e) {
          interrupted = true;
          if (stopOnInterrupt) {
            return false;
          }
        }
      }
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      signaller.problem("waiting for " + cgroup + " to empty: " + e.getCause());
      return false;
    } finally {
      empty.cancel(false);
    }
  }

  private List<TreeMember> survivors() {
    List<TreeMember> out = new ArrayList<>();
    String boot = platform.self().bootId();
    for (long pid : members()) {
      platform
          .info(pid)
          .filter(row -> !row.hasExited())
          .ifPresent(row -> out.add(TreeMember.of(row, boot, cgroupFound())));
    }
    if (out.isEmpty() && populated()) {
      signaller.problem(cgroup + " still populated after " + options.verifyTimeout());
    }
    return out;
  }

  private static Set<Discovery> cgroupFound() {
    return EnumSet.of(Discovery.CGROUP);
  }

  private void remove() {
    try {
      if (!CgroupRemoval.remove(cgroup)) {
        signaller.problem(cgroup + " could not be removed (EBUSY: populated)");
      }
    } catch (IOException e) {
      signaller.problem(e.getMessage());
      LOG.debug("cannot remove {}", cgroup, e);
    }
  }
}
