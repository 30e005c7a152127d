package dev.lifecycle.tree;

import dev.lifecycle.internal.Backoff;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Membership by session, group, parentage and cookie ({@link ContainmentTier#SESSION}): the tree is
 * what process-table scans find. Escaped descendants (setsid, double fork, another group) found
 * once the tree's own group is gone are swept: TERM, the escapee grace, KILL and a bounded
 * verification, by identity, repeated while new ones turn up. Plain loops (see {@link
 * Termination}). Single use, one thread.
 */
final class SessionMembership implements Termination.Membership {
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
  private final Signaller signaller;
  private final Duration escapeeGrace;
  private final Duration verifyTimeout;

  private TreeView last = new TreeView(List.of(), List.of());
  private boolean groupTermed; // TERM + CONT went to the group before the first scan
  private boolean confirmedEmpty; // the last scan, cookie included, found nothing alive
  private boolean unsettled; // the last scan met a process inside execve
  private List<String> suspects = List.of(); // of the last scan with the cookie search

  SessionMembership(
      ProcessPlatform platform,
      TreeScanner scanner,
      Signaller signaller,
      Duration grace,
      TreeOptions options) {
    this.platform = platform;
    this.scanner = scanner;
    this.signaller = signaller;
    Duration checked = TreeOptions.check(grace, "grace");
    this.escapeeGrace =
        checked.compareTo(options.escapeeGrace()) <= 0 ? checked : options.escapeeGrace();
    this.verifyTimeout = options.verifyTimeout();
  }

  @Override
  public ContainmentTier tier() {
    return ContainmentTier.SESSION;
  }

  @Override
  public boolean anyAlive() {
    Scope scope = scanner.scope();
    boolean leaderRuns = scope.anchorIsMember() && platform.probe(scope.anchor()) == Liveness.ALIVE;
    if (scope.anchorIsMember() && !leaderRuns) {
      // Most trees whose leader exited are gone, and one scan with the cookie proves it (a scan
      // without it first would only be repeated).
      return !observe(true).isEmpty();
    }
    if (leaderRuns && signaller.groupSignals()) {
      // The table is read first, so every member the group signal reaches is in the report,
      // including those that exit at once; the full scan then overlaps the grace.
      observe(false);
      if (signaller.group(Signal.TERM)) {
        groupTermed = true;
        signaller.group(Signal.CONT);
        return true;
      }
    }
    // The cookie search reads every environment: skip it when the table alone shows a live tree.
    return !observe(false).isEmpty() || !observe(true).isEmpty();
  }

  @Override
  public void term() {
    List<TreeMember> targets = last.all();
    if (!groupTermed) {
      signaller.signal(targets, Signal.TERM, true);
      return;
    }
    // The group already has TERM + CONT: count its members, signal the others by identity.
    List<TreeMember> others = new ArrayList<>();
    for (TreeMember target : targets) {
      if (signaller.inGroup(target)) {
        signaller.count(target, Signal.TERM);
      } else {
        others.add(target);
      }
    }
    signaller.signal(others, Signal.TERM, false);
  }

  @Override
  public void awaitGone(long deadline) {
    // Processes forked or found during the grace get TERM at once and share its deadline.
    awaitGone(deadline, Signal.TERM, true);
  }

  @Override
  public void kill() {
    // No new scan before the signal: the grace's last poll is at most one poll interval old, the
    // group signal reaches members forked since, and VERIFY kills any other newcomer.
    signaller.signal(last.all(), Signal.KILL, true);
  }

  @Override
  public void verify(long deadline) {
    // Probe the known members every few ms (kill 0 + pidfd, microseconds each), then one full
    // scan with the cookie confirms; full scans with backoff only if something is left.
    awaitProbedGone(last.all(), Math.min(deadline, System.nanoTime() + PROBE_WINDOW.toNanos()));
    awaitGone(deadline, Signal.KILL, true);
  }

  @Override
  public List<TreeMember> survivors() {
    for (int round = 0; !(confirmedEmpty && !unsettled); round++) {
      List<TreeMember> alive = settledScan();
      if (alive.isEmpty()) {
        return List.of();
      }
      List<TreeMember> fresh = signaller.needing(alive, Signal.KILL);
      if (fresh.isEmpty() || round >= MAX_SWEEP_ROUNDS) {
        return alive; // already sent SIGKILL and outlived the verification
      }
      List<TreeMember> unwarned = signaller.needing(fresh, Signal.TERM);
      if (!unwarned.isEmpty()) {
        signaller.signal(unwarned, Signal.TERM, true);
        awaitGone(System.nanoTime() + escapeeGrace.toNanos(), null, true);
      }
      signaller.signal(observe(false).all(), Signal.KILL, true);
      awaitGone(System.nanoTime() + verifyTimeout.toNanos(), Signal.KILL, false);
    }
    return List.of();
  }

  /**
   * A scan with the cookie. A process caught inside execve (its memory map has no environment yet,
   * which /proc/pid/stat shows exactly) carries no readable cookie yet: ask again until it has one,
   * however long a loaded machine takes to finish the exec, bounded by the verification bound.
   */
  private List<TreeMember> settledScan() {
    List<TreeMember> alive = observe(true).all();
    long settleDeadline = System.nanoTime() + verifyTimeout.toNanos();
    while (alive.isEmpty() && unsettled && System.nanoTime() - settleDeadline < 0) {
      signaller.sleep(SETTLE_PAUSE_NANOS);
      alive = observe(true).all();
    }
    if (alive.isEmpty() && unsettled) {
      signaller.problem("a process stayed inside execve for " + verifyTimeout);
    }
    return alive;
  }

  @Override
  public List<String> suspects() {
    return suspects;
  }

  /** Scans, leaving out processes found not to be ours, and remembering every escapee seen. */
  private TreeView observe(boolean withCookie) {
    TreeScanner.Scan scan = scanner.scan(withCookie);
    TreeView scanned = scan.view();
    unsettled = scan.unsettled();
    if (withCookie) {
      suspects = scan.suspects();
    }
    TreeView view =
        new TreeView(signaller.ours(scanned.members()), signaller.ours(scanned.escapees()));
    signaller.escaped(view.escapees());
    last = view;
    confirmedEmpty = withCookie && view.isEmpty(); // nothing by any means: nothing to sweep
    return view;
  }

  /**
   * Polls with backoff until nothing of the tree is alive or the deadline passes, sending {@code
   * signal} on the way to every live process that still needs it (newcomers; {@code null}: none).
   * An interrupt ends a wait before the kill early: an interrupted caller wants the tree gone
   * sooner, so it goes straight to SIGKILL.
   *
   * @param cookieFirst whether the first poll also searches by cookie (escapees found early)
   */
  private void awaitGone(long deadline, Signal signal, boolean cookieFirst) {
    boolean stopOnInterrupt = signal != Signal.KILL;
    Backoff backoff = Backoff.of(FIRST_POLL, MAX_POLL);
    boolean withCookie = cookieFirst;
    while (!observe(withCookie).isEmpty()) {
      withCookie = false;
      List<TreeMember> newcomers =
          signal == null ? List.of() : signaller.needing(last.all(), signal);
      if (!newcomers.isEmpty()) {
        signaller.signal(newcomers, signal, signal == Signal.KILL);
      }
      long delay = backoff.nextNanos(deadline);
      if (delay <= 0 || (signaller.interrupted() && stopOnInterrupt)) {
        return;
      }
      signaller.sleep(delay);
      if (System.nanoTime() - deadline >= 0) {
        return; // no scan past the deadline: the next state acts on what is known
      }
    }
  }

  /** Probes {@code members} by identity every {@link #PROBE_POLL} until none is alive. */
  private void awaitProbedGone(List<TreeMember> members, long deadline) {
    List<TreeMember> left = members;
    while (!left.isEmpty()) {
      List<TreeMember> alive = new ArrayList<>(left.size());
      for (TreeMember member : left) {
        if (platform.probe(member.identity()) == Liveness.ALIVE) {
          alive.add(member);
        }
      }
      left = alive;
      if (left.isEmpty() || System.nanoTime() - deadline >= 0) {
        return;
      }
      signaller.sleep(Math.min(PROBE_POLL.toNanos(), Math.max(0, deadline - System.nanoTime())));
    }
  }
}
