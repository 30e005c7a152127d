package dev.lifecycle.tree;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.SupervisedProcess;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
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
 * Signaller}). The path of a tree found gone (SCAN to REAP) runs no lambda or stream: it is a
 * short-lived program's usual close, where each first lambda is a class generated and linked.
 */
final class Termination {

  /** How a termination finds, signals and waits for a tree's processes: by cgroup or by scans. */
  interface Membership {
    /** The tier whose membership this is. */
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
    void afterReap(boolean gone);

    /** Processes found outside the tree's group, and how. */
    List<TreeMember> escapees();

    /** What this tier saw and could not rule out. */
    List<String> suspects();
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

  private final Membership membership;
  private final Signaller signaller;
  private final Duration grace;
  private final Duration verifyTimeout;
  private final Runnable beforeKill; // null for none
  private final Duration beforeKillTimeout;
  private final SupervisedProcess leader; // null when there is none to reap
  private final String tierReason;
  private final String leaderText;

  private boolean alreadyGone;
  private List<TreeMember> survivors = List.of();

  /**
   * @param beforeKill run (bounded by {@code beforeKillTimeout}) after the grace, before SIGKILL;
   *     {@code null} for none
   * @param leader reaped once it is gone; {@code null} when there is none to reap
   * @param tierReason where the tree's cgroup is or why it has none, for the report
   * @param leaderText the leader's pid and command line, for the report
   */
  Termination(
      Membership membership,
      Signaller signaller,
      Duration grace,
      TreeOptions options,
      Runnable beforeKill,
      Duration beforeKillTimeout,
      SupervisedProcess leader,
      String tierReason,
      String leaderText) {
    this.membership = membership;
    this.signaller = signaller;
    this.grace = TreeOptions.check(grace, "grace");
    this.verifyTimeout = options.verifyTimeout();
    this.beforeKill = beforeKill;
    this.beforeKillTimeout = beforeKillTimeout;
    this.leader = leader;
    this.tierReason = tierReason;
    this.leaderText = leaderText;
  }

  /** A termination with no step before SIGKILL: what a tree's close and an orphans' sweep run. */
  static Termination of(
      Membership membership,
      Signaller signaller,
      Duration grace,
      TreeOptions options,
      SupervisedProcess leader,
      String tierReason,
      String leaderText) {
    return new Termination(
        membership, signaller, grace, options, null, Duration.ZERO, leader, tierReason, leaderText);
  }

  /** The cgroup members the run saw; empty in the SESSION tier. */
  Set<ProcessIdentity> seenInCgroup() {
    return membership instanceof CgroupMembership c ? c.seen() : Set.of();
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
    if (signaller.interrupted()) {
      Thread.currentThread().interrupt();
    }
    return signaller.report(alreadyGone, membership, survivors, started, tierReason, leaderText);
  }

  private State step(State state) {
    return switch (state) {
      case SCAN -> {
        alreadyGone = !membership.anyAlive();
        yield alreadyGone ? State.REAP : State.TERM;
      }
      case TERM -> {
        membership.term();
        yield State.GRACE;
      }
      case GRACE -> {
        // The grace runs from the first TERM: what is signalled or scanned after it overlaps the
        // grace instead of extending it. With no grace left, KILL, and VERIFY finds newcomers.
        long deadline = signaller.firstTermNanos(System.nanoTime()) + grace.toNanos();
        if (System.nanoTime() - deadline < 0) {
          membership.awaitGone(deadline);
        }
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
        membership.verify(System.nanoTime() + verifyTimeout.toNanos());
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
      signaller.interrupt();
      signaller.problem("interrupted while beforeKill ran; killing anyway");
    }
  }
}
