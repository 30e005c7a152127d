package dev.lifecycle.tree;

import dev.lifecycle.internal.Threads;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The one thread that polls trees whose leader exited while descendants live on. A daemon: watching
 * for an exit must never keep the JVM alive (terminations run on their own non-daemon threads).
 */
final class TreeScheduler {
  private TreeScheduler() {}

  static ScheduledExecutorService get() {
    return Holder.INSTANCE;
  }

  private static final class Holder {
    static final ScheduledExecutorService INSTANCE =
        Executors.newSingleThreadScheduledExecutor(Threads.daemons("lifecycle-tree-watch"));
  }
}
