package dev.lifecycle.tree;

import dev.lifecycle.internal.LazyLogger;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Announces every {@link ProcessTree} this JVM spawns to the listeners registered at that moment,
 * so that tooling can know which trees a piece of code started without sampling the process table
 * (the test kit attributes a test's trees through it). A listener runs on the spawning thread right
 * after the leader started, must be quick, and never affects the spawn: an exception it throws is
 * logged and dropped. Thread-safe.
 */
public final class SpawnedTrees {
  private static final LazyLogger LOG = LazyLogger.of(SpawnedTrees.class);

  private static final CopyOnWriteArrayList<Listener> LISTENERS = new CopyOnWriteArrayList<>();

  private SpawnedTrees() {}

  /** Told about each tree spawned while it is registered. */
  @FunctionalInterface
  public interface Listener {
    /**
     * Called on the spawning thread right after {@code tree}'s leader started.
     *
     * @param tree the new tree
     */
    void spawned(ProcessTree tree);
  }

  /** Ends a registration; idempotent. */
  public interface Registration extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Registers {@code listener} until the returned registration is closed.
   *
   * @param listener told about each tree spawned from now on, by any thread
   * @return the registration; close it to stop listening
   */
  public static Registration listen(Listener listener) {
    Objects.requireNonNull(listener, "listener");
    LISTENERS.add(listener);
    return () -> LISTENERS.remove(listener);
  }

  static ProcessTree announce(ProcessTree tree) {
    for (Listener listener : LISTENERS) {
      try {
        listener.spawned(tree);
      } catch (RuntimeException e) {
        LOG.warn("spawn listener {} failed for {}", listener, tree, e);
      }
    }
    return tree;
  }
}
