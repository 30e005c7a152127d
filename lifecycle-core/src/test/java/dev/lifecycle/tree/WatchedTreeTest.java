package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.guard.watchdog.Watchdog;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A tree's watchdog starts once the tree is built, and the first sample may already end it: a
 * termination can begin before the registration is handed to the tree. Both orders must end the
 * tree and leave no registration behind.
 */
class WatchedTreeTest {
  private static final Duration BOUND = Duration.ofSeconds(20);

  @Test
  void aTerminationBeforeTheWatchdogRegistersEndsTheTreeAndTheRegistrationIsClosed()
      throws Exception {
    ProcessPlatform platform = ProcessPlatform.get();
    TreeOptions options =
        TreeOptions.defaults()
            .withGrace(Duration.ofMillis(200))
            .withCeilings(Ceilings.none().withProcesses(50));
    SupervisedProcess leader =
        platform.spawn(
            new ProcessBuilder("sleep", "60"),
            SpawnOptions.defaults()
                .withNewSession(true)
                .withKeepLeaderUnreaped(true)
                .withTreeCookie(SpawnOptions.newCookie()));
    ProcessTree tree =
        new ProcessTree(
            platform,
            leader,
            options,
            Optional.empty(),
            "test",
            "sleep 60",
            GuardedTree.watchdogOnly(options, "test"));
    try {
      int watchedBefore = Watchdog.shared().watchedCount();

      // The order a breach at the first sample produces: the termination runs before watch() has
      // handed the registration over.
      TerminationReport report =
          tree.terminateAsync(Duration.ofMillis(200)).get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
      tree.watch();
      // Closed by watch() itself: the sampler would drop it too, but only at its next pass.
      assertThat(Watchdog.shared().watchedCount()).isLessThanOrEqualTo(watchedBefore);

      assertThat(report.terminated()).contains(leader.pid());
      assertThat(tree.terminate()).isSameAs(report);
    } finally {
      leader.destroyForcibly(); // our own child: ended even when the termination failed
      Await.allGone(BOUND, List.of(leader.identity()));
    }
  }
}
