package dev.lifecycle.broker;

import dev.lifecycle.internal.Threads;

/**
 * The JVM shutdown hook of a broker: on SIGTERM, SIGINT or {@code System.exit} it runs the shutdown
 * pass and waits for it, so the JVM does not end before the backends' escalation completed. Removed
 * once the pass is done. Thread-safe.
 */
final class ExitHook {
  private final boolean enabled;
  private volatile Thread hook;

  /** A hook that, when not {@code enabled}, is never registered (the embedder runs the pass). */
  ExitHook(boolean enabled) {
    this.enabled = enabled;
  }

  /** Registers {@code passAndWait} to run at JVM exit. */
  void install(Runnable passAndWait) {
    if (enabled) {
      hook = Threads.shutdownHook("lifecycle-broker-exit", passAndWait);
    }
  }

  /** The pass is done: a hook is no longer needed (called from the hook itself, a no-op). */
  void remove() {
    Thread h = hook;
    if (h != null && Thread.currentThread() != h) {
      try {
        Runtime.getRuntime().removeShutdownHook(h);
      } catch (IllegalStateException exiting) {
        // The JVM is already exiting: the hook runs and finds the pass done.
      }
    }
  }
}
