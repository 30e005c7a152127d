package dev.lifecycle.inventory;

import dev.lifecycle.tether.Procs;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/** Ends what a test left of its own trees, and only those: the machine may hold other runs'. */
final class OwnTrees {
  private OwnTrees() {}

  /** Reaps the trees named {@code ids} (detached too) until none is found, within {@code bound}. */
  static void reapUntilGone(Inventory inventory, Collection<String> ids, Duration bound) {
    Procs.await(
        bound,
        "the test's own trees reaped",
        () -> {
          try {
            List<FoundTree> left =
                inventory.take().stream().filter(t -> ids.contains(t.id())).toList();
            inventory.reap(left, Duration.ZERO, true);
            return left.isEmpty();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }
}
