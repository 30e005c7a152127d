package dev.lifecycle.internal;

import java.time.Duration;

/** Duration arithmetic that saturates instead of overflowing. */
public final class Durations {
  private Durations() {}

  /**
   * {@code d} in nanoseconds, clamped to [0, Long.MAX_VALUE].
   *
   * @param d the duration
   * @return its nanoseconds, saturated
   */
  public static long saturatedNanos(Duration d) {
    if (d.isNegative()) {
      return 0;
    }
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }
}
