package dev.lifecycle.tree;

import dev.lifecycle.internal.Backoff;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.cgroup.Cgroup;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * When a whole tree is gone, for {@link ProcessTree#onExit()}. In the CGROUP tier on the kernel's
 * {@code populated 0}, which also removes the emptied cgroup, terminated or not; otherwise by
 * polling the tree with backoff once its leader has exited, only while descendants outlive it. A
 * termination that saw nothing left completes it too. Thread-safe.
 */
final class TreeExit {
  private static final LazyLogger LOG = LazyLogger.of(TreeExit.class);

  private static final Duration FIRST_POLL = Duration.ofMillis(20);
  private static final Duration MAX_POLL = Duration.ofSeconds(1);

  private final ProcessTree tree;
  private final SupervisedProcess leader;
  private final TreeScanner scanner; // null in the CGROUP tier: the kernel says when it is empty
  private final CompletableFuture<ProcessTree> exit = new CompletableFuture<>();
  private final AtomicBoolean watching = new AtomicBoolean();

  TreeExit(
      ProcessTree tree, SupervisedProcess leader, TreeScanner scanner, Optional<Cgroup> cgroup) {
    this.tree = tree;
    this.leader = leader;
    this.scanner = cgroup.isPresent() ? null : scanner;
    cgroup.ifPresent(
        c -> {
          CgroupRemoval.track(c);
          c.onEmpty()
              .thenRun(
                  () -> {
                    gone();
                    CgroupRemoval.removeQuietly(c);
                  });
        });
  }

  /**
   * A new future per call, completed with the tree once it is gone; polling starts at the first.
   */
  CompletableFuture<ProcessTree> onExit() {
    if (scanner != null && watching.compareAndSet(false, true)) {
      leader.onExit().whenComplete((p, t) -> poll(Backoff.of(FIRST_POLL, MAX_POLL)));
    }
    return exit.copy();
  }

  void gone() {
    exit.complete(tree);
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
          gone();
          return;
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("cannot scan process tree {}; retrying", leader.pid(), e);
    }
    TreeScheduler.get().schedule(() -> poll(backoff), backoff.nextNanos(), TimeUnit.NANOSECONDS);
  }
}
