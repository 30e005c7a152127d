package dev.lifecycle.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Deadline polling with exponential backoff: the only way the test kit waits. */
final class Polling {
  /** First pause: short enough that a fast exit is seen within a few milliseconds. */
  static final Duration FIRST_PAUSE = Duration.ofMillis(5);

  /** Longest pause: bounds how late a condition is noticed, at ~4 probes per second. */
  static final Duration MAX_PAUSE = Duration.ofMillis(250);

  private Polling() {}

  /**
   * Evaluates {@code condition} until it holds or {@code within} has passed (evaluated at least
   * once, and once more at the deadline).
   *
   * @return whether the condition held
   */
  static boolean until(Duration within, BooleanSupplier condition) {
    long deadline = System.nanoTime() + clampNanos(within);
    long pause = FIRST_PAUSE.toNanos();
    while (true) {
      if (condition.getAsBoolean()) {
        return true;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      pauseNanos(Math.min(pause, left));
      pause = Math.min(pause * 2, MAX_PAUSE.toNanos());
    }
  }

  static long clampNanos(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("duration must not be negative: " + d);
    }
    return d.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365).toNanos() : d.toNanos();
  }

  static void pauseNanos(long nanos) {
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while polling", e);
    }
  }
}
