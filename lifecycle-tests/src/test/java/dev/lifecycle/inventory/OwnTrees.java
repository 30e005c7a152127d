package dev.lifecycle.inventory;

import dev.lifecycle.internal.DetachMarks;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The inventory tests' own trees, and only those: the machine may hold other runs'. Per test, the
 * detach marks go to a directory of the test's, and after it (and after its own {@code @AfterEach}
 * killed the owners) the trees it named in {@link #ids()} are reaped until none is found.
 */
final class OwnTrees implements BeforeEachCallback, AfterEachCallback {
  private final Supplier<Path> marks;
  private final Duration bound;
  private final Inventory inventory = Inventory.of(ProcessPlatform.get()).withWindow(Duration.ZERO);
  private final List<String> ids = new ArrayList<>();

  /** Marks under {@code marks} (read when each test starts), every wait within {@code bound}. */
  OwnTrees(Supplier<Path> marks, Duration bound) {
    this.marks = marks;
    this.bound = bound;
  }

  /**
   * The inventory the test takes and reaps with (no grace window: owners are seen dead at once).
   */
  Inventory inventory() {
    return inventory;
  }

  /** The ids of the trees the test started: reaped after it. */
  List<String> ids() {
    return ids;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    System.setProperty(DetachMarks.DIR_PROPERTY, marks.get().toString());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    try {
      Await.until(
          bound,
          "the test's own trees reaped",
          () -> {
            List<FoundTree> left =
                take(inventory).stream().filter(t -> ids.contains(t.id())).toList();
            inventory.reap(left, Duration.ZERO, true);
            return left.isEmpty();
          });
    } finally {
      ids.clear();
      System.clearProperty(DetachMarks.DIR_PROPERTY);
    }
  }

  /**
   * Takes inventories until every tree in {@code wanted} is found and {@code settled} holds: a tree
   * is listed as soon as its first member runs, before its script has forked the rest.
   */
  List<FoundTree> awaitFound(Collection<String> wanted, Predicate<List<FoundTree>> settled) {
    return Await.until(
        bound,
        "every tree found and settled: " + wanted,
        () -> take(inventory),
        found ->
            found.stream().map(FoundTree::id).toList().containsAll(wanted) && settled.test(found));
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
