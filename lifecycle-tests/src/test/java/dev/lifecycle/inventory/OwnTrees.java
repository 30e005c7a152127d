package dev.lifecycle.inventory;

import dev.lifecycle.testing.Await;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * The inventory tests' view of their own trees, and only those: the machine may hold other runs'.
 */
final class OwnTrees {
  private OwnTrees() {}

  /**
   * Takes inventory until every tree named {@code wanted} is found, within {@code bound}.
   *
   * @return the take that found them all
   */
  static List<FoundTree> awaitFound(
      Inventory inventory, Collection<String> wanted, Duration bound) {
    return Await.until(
        bound,
        "every tree found: " + wanted,
        () -> take(inventory),
        found -> found.stream().map(FoundTree::id).toList().containsAll(wanted));
  }

  /** Reaps the trees named {@code ids} (detached too) until none is found, within {@code bound}. */
  static void reapUntilGone(Inventory inventory, Collection<String> ids, Duration bound) {
    Await.until(
        bound,
        "the test's own trees reaped",
        () -> {
          List<FoundTree> left =
              take(inventory).stream().filter(t -> ids.contains(t.id())).toList();
          inventory.reap(left, Duration.ZERO, true);
          return left.isEmpty();
        });
  }

  private static List<FoundTree> take(Inventory inventory) {
    try {
      return inventory.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
