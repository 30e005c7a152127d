package dev.lifecycle.testkit;

import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.SpawnedTrees;
import dev.lifecycle.tree.TreeMember;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The {@link ProcessTree}s the library spawned while a check listens ({@link SpawnedTrees}): the
 * evidence both tiers take from the library itself. Thread-safe.
 */
final class LibraryTrees implements AutoCloseable {
  private final List<ProcessTree> trees = new CopyOnWriteArrayList<>();
  private final SpawnedTrees.Registration registration = SpawnedTrees.listen(trees::add);

  boolean isEmpty() {
    return trees.isEmpty();
  }

  /** The cookies of the trees spawned so far. */
  Set<String> cookies() {
    Set<String> out = new HashSet<>();
    trees.forEach(t -> out.add(t.cookie()));
    return out;
  }

  /** Live pids of the trees (members and escapees). */
  Set<Long> pids() {
    Set<Long> out = new HashSet<>();
    for (ProcessTree tree : trees) {
      try {
        for (TreeMember m : tree.view().all()) {
          out.add(m.pid());
        }
      } catch (RuntimeException e) {
        // a tree that cannot be scanned now gives no evidence this round
      }
    }
    return out;
  }

  /** The trees that have a process among {@code pids}. */
  List<ProcessTree> touching(Set<Long> pids) {
    List<ProcessTree> out = new ArrayList<>();
    for (ProcessTree tree : trees) {
      try {
        if (pids.contains(tree.leaderIdentity().pid())
            || tree.view().all().stream().anyMatch(m -> pids.contains(m.pid()))) {
          out.add(tree);
        }
      } catch (RuntimeException e) {
        // cannot scan: leave the tree to its owner
      }
    }
    return out;
  }

  /** Stops listening. Idempotent. */
  @Override
  public void close() {
    registration.close();
  }
}
