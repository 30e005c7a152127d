package dev.lifecycle.tree;

import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.cgroup.Cgroup;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The removal of trees' cgroups once they are empty. A tree's cgroup is removed by its {@code
 * populated 0} handler (the watcher's thread), so closing a tree that is already empty does not
 * wait for the {@code rmdir}, which waits for the kernel's cgroup lock. Every tracked cgroup not
 * yet removed is removed by a shutdown hook as the JVM exits, so none outlives a JVM that exits
 * normally; populated ones are refused by the kernel and left (their processes are the tether's
 * business). Thread-safe.
 */
final class CgroupRemoval {
  private static final LazyLogger LOG = LazyLogger.of(CgroupRemoval.class);

  private static final Set<Cgroup> PENDING = ConcurrentHashMap.newKeySet();
  private static final AtomicBoolean HOOKED = new AtomicBoolean();

  private CgroupRemoval() {}

  /** From now on {@code cgroup} is removed at JVM exit at the latest. */
  static void track(Cgroup cgroup) {
    if (HOOKED.compareAndSet(false, true)) {
      try {
        Threads.shutdownHook("lifecycle-cgroup-removal", CgroupRemoval::finishPending);
      } catch (IllegalStateException shuttingDown) {
        // the JVM is exiting already: the tree is removed by its termination or not at all
      }
    }
    PENDING.add(cgroup);
  }

  /**
   * Removes {@code cgroup} now (see {@link Cgroup#remove()}).
   *
   * @return whether it is gone
   * @throws IOException when the removal failed for another reason than being populated
   */
  static boolean remove(Cgroup cgroup) throws IOException {
    boolean gone = cgroup.remove();
    if (gone) {
      PENDING.remove(cgroup);
    }
    return gone;
  }

  /** {@link #remove} that logs instead of throwing. */
  static void removeQuietly(Cgroup cgroup) {
    try {
      remove(cgroup);
    } catch (IOException e) {
      LOG.debug("cannot remove {}", cgroup, e);
    }
  }

  /** Removes every tracked cgroup that is empty now (the shutdown hook; tests). */
  static void finishPending() {
    for (Cgroup cgroup : List.copyOf(PENDING)) {
      try {
        remove(cgroup); // an rmdir in flight on another thread is waited for by the kernel
      } catch (IOException | RuntimeException e) {
        // at exit there is nobody to tell; an empty cgroup left is removed by the next JVM
      }
    }
  }
}
