package dev.lifecycle.tree;

import java.time.Duration;

/** Poll delays that start short (fast exits are seen at once) and double up to a ceiling. */
final class Backoff {
  private final long maxNanos;
  private long nextNanos;

  Backoff(Duration first, Duration max) {
    this.nextNanos = first.toNanos();
    this.maxNanos = max.toNanos();
  }

  /** The next delay. */
  long nextNanos() {
    long delay = nextNanos;
    nextNanos = Math.min(maxNanos, nextNanos * 2);
    return delay;
  }

  /**
   * The next delay, cut short so as not to sleep past {@code deadline} ({@link System#nanoTime}).
   */
  long nextNanos(long deadline) {
    return Math.min(nextNanos(), Math.max(0, deadline - System.nanoTime()));
  }
}
