package dev.lifecycle.tree;

import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.Liveness;
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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  /**
   * Created on first use: a path that logs nothing never starts slf4j (its provider lookup scans
   * the class path, tens of milliseconds in a cold JVM).
   */
  private static final class Log {
    static final Logger LOG = LoggerFactory.getLogger(CgroupTermination.class);
  }

  private final ProcessPlatform platform;
  private final Cgroup cgroup;
  private final ProcessIdentity leader;
  private final long groupId;
  private final boolean groupSignals;
  private final Duration grace;
  private long termSentAt;
  // Every member read (TERM walk, kill): the processes whose zombies a JVM that is PID 1 reaps.
  private final Set<ProcessIdentity> seen = new HashSet<>();
  private final TreeOptions options;
  private final SupervisedProcess leaderProcess;
  private final String tierReason;
  private final String leaderText;
  private final List<ProcessIdentity> entryUnattributed;

  private final Set<Long> termed = new LinkedHashSet<>();
  private final Set<Long> killed = new LinkedHashSet<>();
  private final Map<Long, TreeMember> escapees = new LinkedHashMap<>();
  private final List<String> problems = new ArrayList<>();
  private final List<ProcessIdentity> skipped = new ArrayList<>();
  private boolean groupSignalled;
  private boolean reaped;
  private boolean interrupted;
  private boolean contUnsupported;

  CgroupTermination(
      ProcessPlatform platform,
      Cgroup cgroup,
      ProcessIdentity leader,
      long groupId,
      boolean groupSignals,
      Duration grace,
      TreeOptions options,
      SupervisedProcess leaderProcess,
      String tierReason,
      String leaderText,
      List<ProcessIdentity> entryUnattributed) {
    this.platform = platform;
    this.cgroup = cgroup;
    this.leader = leader;
    this.groupId = groupId;
    this.groupSignals = groupSignals && groupId > 1;
    this.grace = TreeOptions.check(grace, "grace");
    this.options = options;
    this.leaderProcess = leaderProcess;
    this.tierReason = tierReason;
    this.leaderText = leaderText;
    this.entryUnattributed = entryUnattributed;
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
      problems.add("termination: " + e);
      stage = TerminationReport.Stage.KILL;
      try {
        kill();
        if (!awaitEmpty(options.verifyTimeout(), false)) {
          survivors = survivors();
        }
      } catch (RuntimeException again) {
        problems.add("kill: " + again);
        survivors = survivors();
      }
    }
    reap();
    List<String> unprovable = new ArrayList<>();
    for (ProcessIdentity id : entryUnattributed) {
      if (platform.probe(id) == Liveness.ALIVE) {
        unprovable.add(
            id.pid()
                + ": re-parented to init while the leader entered its cgroup; it may have been the"
                + " tree's and is still running outside the cgroup");
      }
    }
    // An already empty cgroup is being removed by the tree's populated-0 handler (CgroupRemoval):
    // its rmdir waits for the kernel's cgroup lock, which a close of an exited tree need not.
    if (survivors.isEmpty() && stage != TerminationReport.Stage.ALREADY_GONE) {
      remove();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return new TerminationReport(
        stage,
        groupSignalled ? groupId : -1,
        termed,
        killed,
        new ArrayList<>(escapees.values()),
        skipped,
        survivors,
        problems,
        Duration.ofNanos(System.nanoTime() - started),
        ContainmentTier.CGROUP,
        tierReason,
        unprovable,
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
      problems.add(e.getMessage());
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
    boolean grouped = signalGroup(signal);
    if (signal == Signal.TERM && grouped) {
      signalGroup(Signal.CONT);
    }
    String boot = platform.self().bootId();
    for (ProcessInfo row : rows) {
      long pid = row.pid();
      seen.add(row.identity(boot));
      if (row.pgid() != groupId) {
        escapees.putIfAbsent(
            pid,
            new TreeMember(
                row.identity(boot),
                row.pgid(),
                row.sid(),
                row.command(),
                EnumSet.of(Discovery.CGROUP)));
      }
      if (grouped && row.pgid() == groupId) {
        record(pid, signal);
        continue;
      }
      ProcessIdentity identity = row.identity(boot);
      SignalResult result = platform.signal(identity, signal);
      if (result == SignalResult.DELIVERED) {
        record(pid, signal);
        if (signal == Signal.TERM && !contUnsupported) {
          try {
            platform.signal(identity, Signal.CONT);
          } catch (UnsupportedOperationException e) {
            contUnsupported = true; // the pure-JDK platform: cgroup.kill ends stopped ones too
          }
        }
      } else if (result == SignalResult.IDENTITY_MISMATCH) {
        skipped.add(identity);
      } else if (result == SignalResult.NOT_PERMITTED) {
        problems.add("not permitted to signal " + pid);
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
          problems.add(e.getMessage());
        }
      }
    }
    try {
      if (!cgroup.exists()) {
        return; // emptied and removed (by the tree's onExit) since the last look
      }
      cgroup.kill();
      killed.addAll(members);
    } catch (IOException e) {
      if (!cgroup.exists()) {
        return;
      }
      problems.add(e.getMessage());
      for (long pid : members) { // no cgroup.kill: one by one, by identity
        platform.identify(pid).ifPresent(id -> platform.signal(id, Signal.KILL));
        killed.add(pid);
      }
    }
    signalGroup(Signal.KILL); // a window fork that stayed outside the cgroup but in the group
  }

  /** Members outside the tree's group (setsid, another group) go into the report as escapees. */
  private void noteEscapees(Set<Long> members) {
    String boot = platform.self().bootId();
    for (long pid : members) {
      if (escapees.containsKey(pid) || termed.contains(pid)) {
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
          .ifPresent(
              row ->
                  escapees.put(
                      pid,
                      new TreeMember(
                          row.identity(boot),
                          row.pgid(),
                          row.sid(),
                          row.command(),
                          EnumSet.of(Discovery.CGROUP))));
    }
  }

  private Set<Long> members() {
    try {
      return cgroup.members();
    } catch (IOException e) {
      problems.add(e.getMessage());
      return Set.of();
    }
  }

  private void record(long pid, Signal signal) {
    if (signal == Signal.TERM) {
      termed.add(pid);
    } else if (signal == Signal.KILL) {
      killed.add(pid);
    }
  }

  /** Signals the group only while the leader's pid still names the leader (running or zombie). */
  private boolean signalGroup(Signal signal) {
    if (!groupSignals || reaped) {
      return false;
    }
    Optional<ProcessIdentity> now = platform.identify(leader.pid());
    if (now.isEmpty() || leader.match(now.get()) == ProcessIdentity.Match.DIFFERENT) {
      return false;
    }
    try {
      boolean delivered = platform.signalGroup(groupId, signal) == SignalResult.DELIVERED;
      groupSignalled |= delivered;
      return delivered;
    } catch (RuntimeException e) {
      problems.add("group " + groupId + " " + signal + ": " + e);
      return false;
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
      problems.add("waiting for " + cgroup + " to empty: " + e.getCause());
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
          .ifPresent(
              row ->
                  out.add(
                      new TreeMember(
                          row.identity(boot),
                          row.pgid(),
                          row.sid(),
                          row.command(),
                          EnumSet.of(Discovery.CGROUP))));
    }
    if (out.isEmpty() && populated()) {
      problems.add(cgroup + " still populated after " + options.verifyTimeout());
    }
    return out;
  }

  private void reap() {
    if (platform.probe(leader) == Liveness.GONE) {
      reaped = leaderProcess.reap(); // last: the group id is free from here on
    }
  }

  private void remove() {
    try {
      if (!CgroupRemoval.remove(cgroup)) {
        problems.add(cgroup + " could not be removed (EBUSY: populated)");
      }
    } catch (IOException e) {
      problems.add(e.getMessage());
      Log.LOG.debug("cannot remove {}", cgroup, e);
    }
  }
}
