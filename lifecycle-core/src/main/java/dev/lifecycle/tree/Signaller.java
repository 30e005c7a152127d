package dev.lifecycle.tree;

import dev.lifecycle.guard.Breach;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SupervisedProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The signals of one termination, in either tier, and their record: the tree's group is signalled
 * only while its anchor's pid still names the anchor (running or an unreaped zombie, so no other
 * group can have its id), every other process by identity; what was sent, skipped, found outside
 * the group and went wrong, and whether the run was interrupted, becomes the {@link
 * TerminationReport}. Plain loops (see {@link Termination}). Single use, one thread.
 */
final class Signaller {
  private final ProcessPlatform platform;
  private final ProcessIdentity anchor;
  private final long groupId;
  private final boolean groupSignals;

  private final Set<ProcessIdentity> termed = new LinkedHashSet<>();
  private final Set<ProcessIdentity> killed = new LinkedHashSet<>();
  // SIGKILL sent to the process itself, not only to the group it was last seen in: a member that
  // left the group (setsid) after it was seen there missed the group's SIGKILL.
  private final Set<ProcessIdentity> killedDirectly = new LinkedHashSet<>();
  private final Set<ProcessIdentity> skipped = new LinkedHashSet<>();
  private final Map<ProcessIdentity, TreeMember> escapees = new LinkedHashMap<>();
  private final Set<String> problems = new LinkedHashSet<>();
  private Optional<Breach> breach = Optional.empty();
  private boolean groupSignalled;
  private boolean contUnsupported;
  private boolean interrupted;
  private long firstTerm;
  private boolean termSent;

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

  /** Whether the group may be signalled as a whole (while pinned). */
  boolean groupSignals() {
    return groupSignals;
  }

  /** Whether {@code member} was last seen in the tree's group. */
  boolean inGroup(TreeMember member) {
    return member.processGroupId() == groupId;
  }

  /**
   * Sends {@code signal} to {@code targets}: once to the group for those in it (when allowed and
   * pinned), by identity to every other one; TERM is followed by CONT, since a stopped process sees
   * TERM only once continued.
   */
  void signal(List<TreeMember> targets, Signal signal, boolean allowGroup) {
    boolean grouped = false;
    for (TreeMember target : targets) {
      if (allowGroup && inGroup(target)) {
        grouped = group(signal);
        break;
      }
    }
    for (TreeMember target : targets) {
      if (grouped && inGroup(target)) {
        count(target, signal);
      } else if (one(target.identity(), signal) == SignalResult.DELIVERED) {
        count(target, signal);
        if (signal == Signal.KILL) {
          killedDirectly.add(target.identity());
        }
      }
    }
    if (signal == Signal.TERM) {
      signal(targets, Signal.CONT, allowGroup);
    }
  }

  /**
   * Signals the tree's group, only while the anchor pins its id.
   *
   * @return whether the group was signalled
   */
  boolean group(Signal signal) {
    if (!groupSignals) {
      return false;
    }
    Optional<ProcessIdentity> now = platform.identify(anchor.pid());
    if (now.isEmpty() || anchor.match(now.get()) == ProcessIdentity.Match.DIFFERENT) {
      return false; // not pinned any more: members are signalled one by one
    }
    noteTerm(signal);
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
   * Signals one process by identity and records a mismatch or a refusal.
   *
   * @return what the platform answered; {@link SignalResult#GONE} for a SIGCONT this platform
   *     cannot send (the pure-JDK one: SIGKILL still ends a stopped process)
   */
  private SignalResult one(ProcessIdentity target, Signal signal) {
    if (signal == Signal.CONT && contUnsupported) {
      return SignalResult.GONE;
    }
    noteTerm(signal);
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
    if (result == SignalResult.IDENTITY_MISMATCH) {
      skipped.add(target);
    } else if (result == SignalResult.NOT_PERMITTED) {
      problems.add("not permitted to signal " + target);
    }
    return result;
  }

  /** Counts {@code target} as sent {@code signal} (by the group, by identity or by cgroup.kill). */
  void count(TreeMember target, Signal signal) {
    if (signal == Signal.TERM) {
      termed.add(target.identity());
    } else if (signal == Signal.KILL) {
      killed.add(target.identity());
    }
  }

  /**
   * Those of {@code members} (as just observed) that still need {@code signal}: for TERM, those
   * sent neither TERM nor KILL; for KILL, those never sent one, or sent only their group's while
   * now outside that group.
   */
  List<TreeMember> needing(List<TreeMember> members, Signal signal) {
    List<TreeMember> out = new ArrayList<>();
    for (TreeMember member : members) {
      ProcessIdentity id = member.identity();
      boolean needs =
          signal == Signal.TERM
              ? !termed.contains(id) && !killed.contains(id)
              : !killed.contains(id) || (!inGroup(member) && !killedDirectly.contains(id));
      if (needs) {
        out.add(member);
      }
    }
    return out;
  }

  /** Those of {@code scanned} not found to be another process when signalled. */
  List<TreeMember> ours(List<TreeMember> scanned) {
    if (skipped.isEmpty()) {
      return scanned;
    }
    List<TreeMember> out = new ArrayList<>(scanned.size());
    for (TreeMember member : scanned) {
      if (!skipped.contains(member.identity())) {
        out.add(member);
      }
    }
    return out;
  }

  /** Records processes found outside the tree's group, merging how each was found. */
  void escaped(List<TreeMember> found) {
    for (TreeMember escapee : found) {
      TreeMember before = escapees.putIfAbsent(escapee.identity(), escapee);
      if (before != null) {
        escapees.put(escapee.identity(), before.foundAlsoBy(escapee));
      }
    }
  }

  void problem(String text) {
    problems.add(text);
  }

  /** Names the breach of a ceiling as what ended the tree; {@code null} for none. */
  void endedFor(Breach cause) {
    breach = Optional.ofNullable(cause);
  }

  /** When the first TERM went out, or {@code otherwise} when none did. */
  long firstTermNanos(long otherwise) {
    return termSent ? firstTerm : otherwise;
  }

  private void noteTerm(Signal signal) {
    if (signal == Signal.TERM && !termSent) {
      termSent = true;
      firstTerm = System.nanoTime();
    }
  }

  /** Sleeps; an interrupt ends the sleep and is kept, to be restored when the run ends. */
  void sleep(long nanos) {
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      interrupted = true;
    }
  }

  void interrupt() {
    interrupted = true;
  }

  boolean interrupted() {
    return interrupted;
  }

  /** Reaps the leader once gone; last, since the group id is free from then on. */
  void reap(SupervisedProcess leader) {
    if (leader != null && platform.probe(anchor) == Liveness.GONE) {
      leader.reap();
    }
  }

  /** The report of a run that started at {@code startedNanos}. */
  TerminationReport report(
      boolean alreadyGone,
      Termination.Membership membership,
      List<TreeMember> survivors,
      long startedNanos,
      String tierReason,
      String leaderText) {
    TerminationReport.Stage endedBy =
        alreadyGone
            ? TerminationReport.Stage.ALREADY_GONE
            : killed.isEmpty() && survivors.isEmpty()
                ? TerminationReport.Stage.TERM
                : TerminationReport.Stage.KILL;
    return new TerminationReport(
        endedBy,
        groupSignalled ? groupId : -1,
        pids(termed),
        pids(killed),
        new ArrayList<>(escapees.values()),
        new ArrayList<>(skipped),
        survivors,
        new ArrayList<>(problems),
        Duration.ofNanos(System.nanoTime() - startedNanos),
        membership.tier(),
        tierReason,
        membership.suspects(),
        leaderText,
        breach);
  }

  private static Set<Long> pids(Set<ProcessIdentity> identities) {
    Set<Long> out = new LinkedHashSet<>();
    for (ProcessIdentity identity : identities) {
      out.add(identity.pid());
    }
    return out;
  }
}
