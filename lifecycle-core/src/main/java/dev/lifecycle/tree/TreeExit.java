package dev.lifecycle.tree;

import dev.lifecycle.internal.Backoff;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.process.SupervisedProcess;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * When a {@link ProcessTree} is gone: completed by its cgroup going empty, by a termination that
 * saw nothing survive, or (SESSION tier) by scans that start once the leader exits and run only
 * while descendants outlive it. Thread-safe.
 */
final class TreeExit {
  private static final LazyLogger LOG = LazyLogger.of(ProcessTree.class);
  private static final Duration FIRST_POLL = Duration.ofMillis(20);
  private static final Duration MAX_POLL = Duration.ofSeconds(1);

  private final ProcessTree tree;
  private final SupervisedProcess leader;
  private final TreeScanner scanner;
  private final boolean byCgroup;
  private final CompletableFuture<ProcessTree> exit = new CompletableFuture<>();
  private final AtomicBoolean watching = new AtomicBoolean();

  TreeExit(ProcessTree tree, SupervisedProcess leader, TreeScanner scanner, boolean byCgroup) {
    this.tree = tree;
    this.leader = leader;
    this.scanner = scanner;
    this.byCgroup = byCgroup;
  }

  /** Marks the tree gone; later calls do nothing. */
  void complete() {
    exit.complete(tree);
  }

  /** A new future per call; the first call of a tree without a cgroup starts the watch. */
  CompletableFuture<ProcessTree> future() {
    if (!byCgroup && watching.compareAndSet(false, true)) {
      leader.onExit().whenComplete((p, t) -> poll(Backoff.of(FIRST_POLL, MAX_POLL)));
    }
    return exit.copy();
  }

  private void poll(Backoff backoff) {
    if (exit.isDone()) {
      return;
    }
    try {
      // The cheap scan decides "still running"; only an empty one is confirmed with the cookie.
      // A process caught inside execve carries no readable cookie yet: not empty until settled.
      if (scanner.scan(false).view().isEmpty()) {
        TreeScanner.Scan confirmed = scanner.scan(true);
        if (confirmed.view().isEmpty() && !confirmed.unsettled()) {
          complete();
          return;
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("cannot scan process tree {}; retrying", leader.pid(), e);
    }
    TreeScheduler.get().schedule(() -> poll(backoff), backoff.nextNanos(), TimeUnit.NANOSECONDS);
  }
}
