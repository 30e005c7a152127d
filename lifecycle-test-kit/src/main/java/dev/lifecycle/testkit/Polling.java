package dev.lifecycle.testkit;

import dev.lifecycle.internal.Backoff;
import dev.lifecycle.internal.Durations;
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
    Backoff backoff = Backoff.of(FIRST_PAUSE, MAX_PAUSE);
    while (true) {
      if (condition.getAsBoolean()) {
        return true;
      }
      long pause = backoff.nextNanos(deadline);
      if (pause <= 0) {
        return false;
      }
      pauseNanos(pause);
    }
  }

  static long clampNanos(Duration d) {
    return Durations.nonNegative(d, "duration").toNanos();
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
