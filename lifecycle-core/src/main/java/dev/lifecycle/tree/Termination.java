package dev.lifecycle.tree;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.cgroup.Cgroup;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One staged termination of a tree, in either tier, as an explicit state machine over a {@link
 * Membership}. Every path, including a failure in any state, leads through {@link State#KILL},
 * {@link State#VERIFY}, {@link State#SWEEP} and {@link State#REAP}: nothing that starts a
 * termination can end it before SIGKILL and verification. Single use, run on one thread.
 *
 * <pre>
 * SCAN --nothing alive--------------------------------------------------> REAP -> DONE
 *   \-> TERM (+CONT) -> GRACE -> BEFORE_KILL -> KILL -> VERIFY -> SWEEP -> REAP -> DONE
 * </pre>
 *
 * <p>The leader is reaped in {@link State#REAP}, after the last group signal (see {@link
 * Signaller}). No lambda or stream on any path, in the engine or its memberships: a tree's close is
 * often a short-lived program's last act, where each first lambda is a class generated and linked.
 *
 * @param beforeKill run (bounded by {@code beforeKillTimeout}) after the grace, before SIGKILL;
 *     {@code null} for none
 * @param leader reaped once it is gone; {@code null} when there is none to reap
 * @param tierReason where the tree's cgroup is or why it has none, for the report
 * @param leaderText the leader's pid and command line, for the report
 */
record Termination(
    Membership membership,
    Signaller signaller,
    Duration grace,
    TreeOptions options,
    Runnable beforeKill,
    Duration beforeKillTimeout,
    SupervisedProcess leader,
    String tierReason,
    String leaderText) {

  /** How a termination finds, signals and waits for a tree's processes: by cgroup or by scans. */
  interface Membership {
    ContainmentTier tier();

    /** Whether anything of the tree may be alive (the session tier may TERM its group here). */
    boolean anyAlive();

    /** TERM and CONT to every member not yet warned. */
    void term();

    /** Waits for the tree to go until {@code deadline}; an interrupt ends the wait. */
    void awaitGone(long deadline);

    /** SIGKILL to every member. */
    void kill();

    /** Waits, until {@code deadline}, for the tree to be gone after the kill. */
    void verify(long deadline);

    /** What outlived the kill and verification, after any escapee sweep. */
    List<TreeMember> survivors();

    /** Runs after the leader's reap; {@code gone} when the tree was ended and nothing survived. */
    default void afterReap(boolean gone) {}

    /** What this tier saw and could not rule out. */
    default List<String> suspects() {
      return List.of();
    }
  }

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

  Termination {
    grace = TreeOptions.check(grace, "grace");
  }

  /**
   * A termination without a hook: of {@code cgroup}'s members when present, else of what {@code
   * scanner} finds.
   */
  static Termination of(
      ProcessPlatform platform,
      Optional<Cgroup> cgroup,
      TreeScanner scanner,
      SupervisedProcess leader,
      Signaller signaller,
      Duration grace,
      TreeOptions options,
      String tierReason,
      String leaderText) {
    Membership membership =
        cgroup.isPresent()
            ? new CgroupMembership(platform, cgroup.get(), leader, signaller, options)
            : new SessionMembership(platform, scanner, signaller, grace, options);
    return new Termination(
        membership, signaller, grace, options, null, Duration.ZERO, leader, tierReason, leaderText);
  }

  TerminationReport run() {
    long started = System.nanoTime();
    boolean alreadyGone = false;
    List<TreeMember> survivors = List.of();
    State state = State.SCAN;
    while (state != State.DONE) {
      State current = state;
      try {
        state =
            switch (current) {
              case SCAN -> {
                alreadyGone = !membership.anyAlive();
                yield alreadyGone ? State.REAP : State.TERM;
              }
              case TERM -> {
                membership.term();
                yield State.GRACE;
              }
              case GRACE -> {
                awaitGrace();
                yield State.BEFORE_KILL;
              }
              case BEFORE_KILL -> {
                runBeforeKill();
                yield State.KILL;
              }
              case KILL -> {
                membership.kill();
                yield State.VERIFY;
              }
              case VERIFY -> {
                membership.verify(System.nanoTime() + options.verifyTimeout().toNanos());
                yield State.SWEEP;
              }
              case SWEEP -> {
                survivors = membership.survivors();
                yield State.REAP;
              }
              case REAP -> {
                signaller.reap(leader);
                membership.afterReap(!alreadyGone && survivors.isEmpty());
                yield State.DONE;
              }
              case DONE -> State.DONE;
            };
      } catch (RuntimeException e) {
        signaller.problem(current + ": " + e);
        state = current.onFailure();
      }
    }
    if (signaller.interrupted()) {
      Thread.currentThread().interrupt();
    }
    return signaller.report(alreadyGone, membership, survivors, started, tierReason, leaderText);
  }

  /**
   * The grace runs from the first TERM: what is signalled or scanned after it overlaps the grace
   * instead of extending it. With no grace left, KILL, and VERIFY finds newcomers.
   */
  private void awaitGrace() {
    long deadline = signaller.firstTermNanos(System.nanoTime()) + grace.toNanos();
    if (System.nanoTime() - deadline < 0) {
      membership.awaitGone(deadline);
    }
  }

  /** Runs the hook on its own thread: neither its exception nor its hang may stop the kill. */
  private void runBeforeKill() {
    if (beforeKill == null) {
      return;
    }
    FutureTask<Void> done = new FutureTask<>(beforeKill, null);
    Threads.startDaemon("lifecycle-before-kill", done);
    try {
      done.get(beforeKillTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      signaller.problem("beforeKill failed: " + e.getCause());
    } catch (TimeoutException e) {
      signaller.problem(
          "beforeKill did not return within " + beforeKillTimeout + "; killing anyway");
    } catch (InterruptedException e) {
      signaller.interrupt();
      signaller.problem("interrupted while beforeKill ran; killing anyway");
    }
  }
}
