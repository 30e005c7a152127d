package dev.lifecycle.tree;

import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SupervisedProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The signals of one termination, in either tier, and their record: the tree's group is signalled
 * only while its anchor's pid still names the anchor (running or an unreaped zombie, so no other
 * group can have its id), every other process by identity; what was sent, skipped and went wrong
 * becomes the {@link TerminationReport}. Single use, one thread.
 */
final class Signaller {
  private final ProcessPlatform platform;
  private final ProcessIdentity anchor;
  private final long groupId;
  private final boolean groupSignals;

  private final Set<Long> termed = new LinkedHashSet<>();
  private final Set<Long> killed = new LinkedHashSet<>();
  private final Set<ProcessIdentity> skipped = new LinkedHashSet<>();
  private final Set<String> problems = new LinkedHashSet<>();
  private boolean groupSignalled;
  private boolean reaped;
  private boolean contUnsupported;

  /**
   * @param anchor the process whose pid pins the group id (the leader)
   * @param groupSignals whether the group may be signalled as a whole (the platform can, and the
   *     group is the tree's own)
   */
  Signaller(ProcessPlatform platform, ProcessIdentity anchor, long groupId, boolean groupSignals) {
    this.platform = platform;
    this.anchor = anchor;
    this.groupId = groupId;
    this.groupSignals = groupSignals && groupId > 1;
  }

  long groupId() {
    return groupId;
  }

  /**
   * Signals the tree's group, only while the anchor pins its id.
   *
   * @return whether the group was signalled
   */
  boolean group(Signal signal) {
    if (!groupSignals || reaped) {
      return false;
    }
    Optional<ProcessIdentity> now = platform.identify(anchor.pid());
    if (now.isEmpty() || anchor.match(now.get()) == ProcessIdentity.Match.DIFFERENT) {
      return false; // not pinned any more: members are signalled one by one
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
   * Signals one process by identity and records the outcome.
   *
   * @return what the platform answered; {@link SignalResult#GONE} for a SIGCONT this platform
   *     cannot send (the pure-JDK one: SIGKILL still ends a stopped process)
   */
  SignalResult one(ProcessIdentity target, Signal signal) {
    if (signal == Signal.CONT && contUnsupported) {
      return SignalResult.GONE;
    }
    SignalResult result;
    try {
      result = platform.signal(target, signal);
    } catch (UnsupportedOperationException e) {
      if (signal != Signal.CONT) {
        throw e;
      }
      contUnsupported = true;
      return SignalResult.GONE;
    }
    switch (result) {
      case DELIVERED -> sent(target.pid(), signal);
      case IDENTITY_MISMATCH -> skipped.add(target);
      case NOT_PERMITTED -> problems.add("not permitted to signal " + target);
      case GONE -> {}
    }
    return result;
  }

  /** Counts {@code pid} as sent {@code signal} (by the group or {@code cgroup.kill}). */
  void sent(long pid, Signal signal) {
    if (signal == Signal.TERM) {
      termed.add(pid);
    } else if (signal == Signal.KILL) {
      killed.add(pid);
    }
  }

  boolean wasSent(long pid) {
    return termed.contains(pid) || killed.contains(pid);
  }

  boolean isSkipped(ProcessIdentity identity) {
    return skipped.contains(identity);
  }

  boolean noneSkipped() {
    return skipped.isEmpty();
  }

  boolean noneKilled() {
    return killed.isEmpty();
  }

  void problem(String text) {
    problems.add(text);
  }

  /** Reaps the leader once gone; last, since the group id is free from then on. */
  void reap(SupervisedProcess leader) {
    if (leader != null && platform.probe(anchor) == Liveness.GONE) {
      reaped = leader.reap();
    }
  }

  TerminationReport report(
      TerminationReport.Stage endedBy,
      List<TreeMember> escapees,
      List<TreeMember> survivors,
      long startedNanos,
      ContainmentTier tier,
      String tierReason,
      List<String> unprovable,
      String leaderText) {
    return new TerminationReport(
        endedBy,
        groupSignalled ? groupId : -1,
        termed,
        killed,
        escapees,
        new ArrayList<>(skipped),
        survivors,
        new ArrayList<>(problems),
        Duration.ofNanos(System.nanoTime() - startedNanos),
        tier,
        tierReason,
        unprovable,
        leaderText);
  }
}
