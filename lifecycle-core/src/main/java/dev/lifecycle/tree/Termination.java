package dev.lifecycle.tree;

import dev.lifecycle.internal.Backoff;
import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SupervisedProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * One staged termination of a tree, as an explicit state machine. Every path, including a failure
 * in any state, leads through {@link State#KILL}, {@link State#VERIFY}, {@link State#SWEEP} and
 * {@link State#REAP}: nothing that starts a termination can end it before SIGKILL and verification.
 * Single use, run on one thread.
 *
 * <pre>
 * SCAN --nothing alive--------------------------------------------------> REAP -> DONE
 *   \-> TERM (+CONT) -> GRACE -> BEFORE_KILL -> KILL -> VERIFY -> SWEEP -> REAP -> DONE
 *                                                                 ^  |
 *                                                                 \--/ escapees: TERM, grace, KILL
 * </pre>
 *
 * <p>The group is signalled only while its leader's pid still names the leader (running or an
 * unreaped zombie): then no other group can have its id. The leader is reaped in {@link
 * State#REAP}, after the last group signal. Without group signals, or once the group id is not
 * pinned, every process is signalled on its own, by identity.
 *
 * <p>The path of a tree found gone (SCAN to REAP) runs no lambda or stream: it is a short-lived
 * program's usual close, where each first lambda is a class generated and linked.
 */
final class Termination {

  /** The states, in the order a run visits them. */
  enum State {
    SCAN,
    TERM,
    GRACE,
    BEFORE_KILL,
    KILL,
    VERIFY,
    SWEEP,
    REAP,
    DONE;

    /** Where a run goes when this state fails: always onwards, towards SIGKILL and verification. */
    State onFailure() {
      return switch (this) {
        case SCAN, TERM, GRACE, BEFORE_KILL -> KILL;
        case KILL -> VERIFY;
        case VERIFY -> SWEEP;
        case SWEEP -> REAP;
        case REAP, DONE -> DONE;
      };
    }
  }

  // First poll soon after a signal (short-lived trees are seen gone at once), then back off.
  private static final Duration FIRST_POLL = Duration.ofMillis(5);
  private static final Duration MAX_POLL = Duration.ofMillis(100);
  private static final int MAX_SWEEP_ROUNDS = 4;

  private static final long SETTLE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  private static final Duration PROBE_POLL = Duration.ofMillis(2);
  // Probing known members is the cheap way to see a SIGKILLed tree go; a member still alive after
  // this long is checked by scans, which also see a member that left the group.
  private static final Duration PROBE_WINDOW = Duration.ofMillis(250);

  private final ProcessPlatform platform;
  private final TreeScanner scanner;
  private final Scope scope;
  private final boolean groupSignals;
  private final Duration grace;
  private final TreeOptions options;
  private final Runnable beforeKill;
  private final Duration beforeKillTimeout;
  private final SupervisedProcess leader; // reaped once gone; null when there is none to reap

  private final String tierReason;
  private final String leaderText;
  private final Signaller signaller;

  private final Set<ProcessIdentity> termed = new HashSet<>();
  private final Set<ProcessIdentity> killed = new HashSet<>();
  // SIGKILL sent to the process itself, not only to the group it was last seen in: a member that
  // left the group (setsid) after it was seen there missed the group's SIGKILL.
  private final Set<ProcessIdentity> killedDirectly = new HashSet<>();
  private final Map<ProcessIdentity, TreeMember> escapees = new LinkedHashMap<>();
  private List<TreeMember> survivors = List.of();
  private TreeView last = new TreeView(List.of(), List.of());
  private boolean alreadyGone;
  private boolean groupTermed; // TERM + CONT went to the group before the first scan
  private boolean confirmedEmpty; // the last scan, cookie included, found nothing alive
  private boolean unsettled; // the last scan met a process inside execve
  private List<String> suspects = List.of(); // of the last scan with the cookie search
  private boolean interrupted;
  private long graceDeadline;
  private int sweepRounds;

  /**
   * @param groupSignals whether the platform can signal groups and the scope's group is the tree's
   * @param beforeKill run (bounded by {@code beforeKillTimeout}) after the grace, before SIGKILL;
   *     {@code null} for none
   * @param leader reaped once it is gone; {@code null} when there is none to reap
   * @param tierReason why the tree has no cgroup, for the report
   * @param leaderText the leader's pid and command line, for the report
   */
  Termination(
      ProcessPlatform platform,
      TreeScanner scanner,
      boolean groupSignals,
      Duration grace,
      TreeOptions options,
      Runnable beforeKill,
      Duration beforeKillTimeout,
      SupervisedProcess leader,
      String tierReason,
      String leaderText) {
    this.platform = platform;
    this.scanner = scanner;
    this.scope = scanner.scope();
    this.groupSignals = groupSignals && scope.ownsGroup();
    this.grace = TreeOptions.check(grace, "grace");
    this.options = options;
    this.beforeKill = beforeKill;
    this.beforeKillTimeout = beforeKillTimeout;
    this.leader = leader;
    this.tierReason = tierReason;
    this.leaderText = leaderText;
    this.signaller = new Signaller(platform, scope.anchor(), scope.groupId(), this.groupSignals);
  }

  TerminationReport run() {
    long started = System.nanoTime();
    State state = State.SCAN;
    while (state != State.DONE) {
      State current = state;
      try {
        state = step(current);
      } catch (RuntimeException e) {
        signaller.problem(current + ": " + e);
        state = current.onFailure();
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    TerminationReport.Stage endedBy =
        alreadyGone
            ? TerminationReport.Stage.ALREADY_GONE
            : signaller.noneKilled() && survivors.isEmpty()
                ? TerminationReport.Stage.TERM
                : TerminationReport.Stage.KILL;
    // The suspects of the last cookie search: what this tier saw and could not rule out.
    return signaller.report(
        endedBy,
        new ArrayList<>(escapees.values()),
        survivors,
        started,
        ContainmentTier.SESSION,
        tierReason,
        suspects,
        leaderText);
  }

  private State step(State state) {
    return switch (state) {
      case SCAN -> {
        // A pinned group is signalled before the scan, and the grace runs from there: the full
        // scan (a /proc snapshot) then overlaps the grace instead of preceding it.
        // The table is read first, so every member the group signal reaches is in the report,
        // including those that exit at once.
        boolean leaderRuns =
            scope.anchorIsMember() && platform.probe(scope.anchor()) == Liveness.ALIVE;
        if (scope.anchorIsMember() && !leaderRuns) {
          // The leader has exited: most such trees are gone, and one scan with the cookie proves
          // it (a scan without it first would only be repeated).
          if (observe(true).isEmpty()) {
            alreadyGone = true;
            yield State.REAP;
          }
          yield State.TERM;
        }
        if (leaderRuns && groupSignals) {
          observe(false);
          if (earlyGroupTerm()) {
            yield State.TERM;
          }
        }
        // The cookie search reads every environment: skip it when the table alone shows a live
        // tree (the grace's first poll runs it), do it before declaring the tree gone.
        if (observe(false).isEmpty() && observe(true).isEmpty()) {
          alreadyGone = true;
          yield State.REAP;
        }
        yield State.TERM;
      }
      case TERM -> {
        List<TreeMember> targets = last.all();
        if (groupTermed) {
          // The group already has TERM + CONT: count its members, signal the others by identity.
          targets.stream().filter(this::inGroup).forEach(m -> record(m, Signal.TERM));
          targets = targets.stream().filter(m -> !inGroup(m)).toList();
          signal(targets, Signal.TERM, false);
          signal(targets, Signal.CONT, false);
          yield State.GRACE;
        }
        signal(targets, Signal.TERM, true);
        signal(targets, Signal.CONT, true); // a stopped process sees TERM only once continued
        graceDeadline = System.nanoTime() + grace.toNanos();
        yield State.GRACE;
      }
      case GRACE -> {
        // Processes forked or found during the grace get TERM at once and share its deadline.
        // With no grace left there is nothing to wait for: KILL, and VERIFY finds newcomers.
        if (System.nanoTime() - graceDeadline < 0) {
          awaitGone(graceDeadline, Signal.TERM, m -> !termed.contains(m.identity()), true, true);
        }
        yield State.BEFORE_KILL;
      }
      case BEFORE_KILL -> {
        runBeforeKill();
        yield State.KILL;
      }
      case KILL -> {
        // No new scan before the signal: the grace's last poll is at most one poll interval old,
        // the group signal reaches members forked since, and VERIFY kills any other newcomer.
        signal(last.all(), Signal.KILL, true);
        yield State.VERIFY;
      }
      case VERIFY -> {
        long deadline = System.nanoTime() + options.verifyTimeout().toNanos();
        // Probe the known members every few ms (kill 0 + pidfd, microseconds each), then one full
        // scan with the cookie confirms; full scans with backoff only if something is left.
        awaitProbedGone(last.all(), Math.min(deadline, System.nanoTime() + PROBE_WINDOW.toNanos()));
        awaitGone(deadline, Signal.KILL, this::missedTheKill, false, true);
        yield State.SWEEP;
      }
      case SWEEP -> confirmedEmpty && !unsettled ? State.REAP : sweep();
      case REAP -> {
        signaller.reap(leader);
        yield State.DONE;
      }
      case DONE -> State.DONE;
    };
  }

  /**
   * TERM + CONT to the tree's group before any scan, when the group is the tree's and pinned by its
   * leader; starts the grace. Members forked during the following scan count as warned by it.
   *
   * @return whether the group was signalled
   */
  private boolean earlyGroupTerm() {
    // Only with a live leader: a tree whose leader already exited may be gone (ALREADY_GONE).
    if (!scope.anchorIsMember()
        || !groupSignals
        || platform.probe(scope.anchor()) != Liveness.ALIVE
        || !signaller.group(Signal.TERM)) {
      return false;
    }
    graceDeadline = System.nanoTime() + grace.toNanos();
    groupTermed = true;
    signaller.group(Signal.CONT); // a stopped process sees TERM only once continued
    return true;
  }

  private boolean inGroup(TreeMember member) {
    return member.processGroupId() == scope.groupId();
  }

  /**
   * Escaped descendants (setsid, double fork, another group) found by session, parentage or cookie
   * once the tree's own group is gone: each gets TERM, the escapee grace, KILL and a bounded
   * verification, by identity. Repeats while new ones turn up (an escapee's own escapees), a
   * bounded number of times.
   */
  private State sweep() {
    List<TreeMember> alive = observe(true).all();
    // A process caught inside execve (its memory map has no environment yet, which /proc/pid/stat
    // shows exactly) carries no readable cookie yet: ask again until it has one, however long a
    // loaded machine takes to finish the exec, bounded by the verification bound.
    long settleDeadline = System.nanoTime() + options.verifyTimeout().toNanos();
    while (alive.isEmpty() && unsettled && System.nanoTime() - settleDeadline < 0) {
      sleep(SETTLE_PAUSE_NANOS);
      alive = observe(true).all();
    }
    if (alive.isEmpty() && unsettled) {
      signaller.problem("a process stayed inside execve for " + options.verifyTimeout());
    }
    if (alive.isEmpty()) {
      return State.REAP;
    }
    List<TreeMember> fresh = alive.stream().filter(this::missedTheKill).toList();
    if (fresh.isEmpty() || ++sweepRounds > MAX_SWEEP_ROUNDS) {
      survivors = alive; // already sent SIGKILL and outlived the verification
      return State.REAP;
    }
    List<TreeMember> unwarned = fresh.stream().filter(m -> !termed.contains(m.identity())).toList();
    if (!unwarned.isEmpty()) {
      signal(unwarned, Signal.TERM, true);
      signal(unwarned, Signal.CONT, true);
      Duration escapeeGrace = min(grace, options.escapeeGrace());
      awaitGone(System.nanoTime() + escapeeGrace.toNanos(), Signal.TERM, m -> false, true, true);
    }
    signal(observe(false).all(), Signal.KILL, true);
    long deadline = System.nanoTime() + options.verifyTimeout().toNanos();
    awaitGone(deadline, Signal.KILL, this::missedTheKill, false, false);
    return State.SWEEP;
  }

  /**
   * Whether {@code member} (as just observed) may not have received SIGKILL: never sent one, or
   * sent only its group's while it is now outside that group (it left between the observation the
   * group signal went by and the signal).
   */
  private boolean missedTheKill(TreeMember member) {
    return !killed.contains(member.identity())
        || (!inGroup(member) && !killedDirectly.contains(member.identity()));
  }

  /** Scans, leaving out processes found not to be ours, and remembering every escapee seen. */
  private TreeView observe(boolean withCookie) {
    TreeScanner.Scan scan = scanner.scan(withCookie);
    TreeView scanned = scan.view();
    unsettled = scan.unsettled();
    if (withCookie) {
      suspects = scan.suspects();
    }
    TreeView view = new TreeView(ours(scanned.members()), ours(scanned.escapees()));
    for (TreeMember escapee : view.escapees()) {
      escapees.merge(escapee.identity(), escapee, TreeMember::foundAlsoBy);
    }
    last = view;
    confirmedEmpty = withCookie && view.isEmpty(); // nothing by any means: nothing to sweep
    return view;
  }

  /** Without those found not to be ours; a loop, not a stream (see the class comment). */
  private List<TreeMember> ours(List<TreeMember> scanned) {
    if (signaller.noneSkipped()) {
      return scanned;
    }
    List<TreeMember> out = new ArrayList<>(scanned.size());
    for (TreeMember member : scanned) {
      if (!signaller.isSkipped(member.identity())) {
        out.add(member);
      }
    }
    return out;
  }

  /**
   * Polls with backoff until nothing of the tree is alive or the deadline passes, sending {@code
   * signal} to every live process {@code needsSignal} selects (newcomers) on the way.
   *
   * @param stopOnInterrupt whether an interrupt ends the wait early (the grace: an interrupted
   *     caller wants the tree gone sooner, so it goes straight to SIGKILL)
   * @param cookieFirst whether the first poll also searches by cookie (escapees found early)
   */
  private boolean awaitGone(
      long deadline,
      Signal signal,
      Predicate<TreeMember> needsSignal,
      boolean stopOnInterrupt,
      boolean cookieFirst) {
    Backoff backoff = Backoff.of(FIRST_POLL, MAX_POLL);
    boolean withCookie = cookieFirst;
    while (true) {
      TreeView view = observe(withCookie);
      if (view.isEmpty()) {
        return true;
      }
      withCookie = false;
      List<TreeMember> newcomers = view.all().stream().filter(needsSignal).toList();
      if (!newcomers.isEmpty()) {
        signal(newcomers, signal, signal == Signal.KILL);
        if (signal == Signal.TERM) {
          signal(newcomers, Signal.CONT, false);
        }
      }
      long delay = backoff.nextNanos(deadline);
      if (delay <= 0 || (interrupted && stopOnInterrupt)) {
        return false;
      }
      sleep(delay);
      if (System.nanoTime() - deadline >= 0) {
        return false; // no scan past the deadline: the next state acts on what is known
      }
    }
  }

  /** Probes {@code members} by identity every {@link #PROBE_POLL} until none is ours and alive. */
  private void awaitProbedGone(List<TreeMember> members, long deadline) {
    List<TreeMember> left = members;
    while (!left.isEmpty()) {
      left = left.stream().filter(m -> platform.probe(m.identity()) == Liveness.ALIVE).toList();
      if (left.isEmpty() || System.nanoTime() - deadline >= 0) {
        return;
      }
      sleep(Math.min(PROBE_POLL.toNanos(), Math.max(0, deadline - System.nanoTime())));
    }
  }

  /**
   * Sends {@code signal} to {@code targets}: once to the group for those in it (when allowed and
   * pinned), by identity to every other one.
   *
   * @return whether the group was signalled
   */
  private boolean signal(List<TreeMember> targets, Signal signal, boolean allowGroup) {
    Predicate<TreeMember> inGroup = m -> m.processGroupId() == scope.groupId();
    boolean grouped = allowGroup && targets.stream().anyMatch(inGroup) && signaller.group(signal);
    for (TreeMember target : targets) {
      if (grouped && inGroup.test(target)) {
        record(target, signal);
      } else {
        signalOne(target, signal);
      }
    }
    return grouped;
  }

  private void signalOne(TreeMember target, Signal signal) {
    if (signaller.one(target.identity(), signal) == SignalResult.DELIVERED) {
      remember(target, signal);
      if (signal == Signal.KILL) {
        killedDirectly.add(target.identity());
      }
    }
  }

  /** Counts a member the group signal reached. */
  private void record(TreeMember target, Signal signal) {
    remember(target, signal);
    signaller.sent(target.pid(), signal);
  }

  private void remember(TreeMember target, Signal signal) {
    if (signal == Signal.TERM || signal == Signal.KILL) {
      termed.add(target.identity());
    }
    if (signal == Signal.KILL) {
      killed.add(target.identity());
    }
  }

  /** Runs the hook on its own thread: neither its exception nor its hang may stop the kill. */
  private void runBeforeKill() {
    if (beforeKill == null) {
      return;
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    Threads.startDaemon(
        "lifecycle-before-kill",
        () -> {
          try {
            beforeKill.run();
            done.complete(null);
          } catch (Throwable t) {
            done.completeExceptionally(t);
          }
        });
    try {
      done.get(beforeKillTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      signaller.problem("beforeKill failed: " + e.getCause());
    } catch (TimeoutException e) {
      signaller.problem(
          "beforeKill did not return within " + beforeKillTimeout + "; killing anyway");
    } catch (InterruptedException e) {
      interrupted = true;
      signaller.problem("interrupted while beforeKill ran; killing anyway");
    }
  }

  private void sleep(long nanos) {
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      interrupted = true; // finish the escalation regardless; the flag is restored at the end
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
