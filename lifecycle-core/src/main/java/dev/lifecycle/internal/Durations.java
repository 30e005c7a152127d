package dev.lifecycle.internal;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * The one saturating clamp of the library's durations, and the one grammar for durations where
 * {@code 0} means none (a grace, a wait). Every duration handed to a deadline or a scheduler is at
 * most {@link #MAX} (100 years): its nanoseconds fit a {@code long}, and so does a deadline of
 * {@link System#nanoTime()} plus it, so no wait overflows into an early end. Stateless and
 * thread-safe.
 */
public final class Durations {
  /**
   * 100 years, "effectively never" (published as {@code dev.lifecycle.time.Limit#MAX}). Its
   * nanosecond count (about 3.2e18) fits a {@code long} with room to spare, which is why it is the
   * clamp and not something larger.
   */
  public static final Duration MAX = Duration.ofDays(36_500);

  private Durations() {}

  /**
   * {@code d} clamped to [0, {@link #MAX}].
   *
   * @param d the duration
   * @return zero if negative, {@link #MAX} if longer, else {@code d}
   */
  public static Duration clamp(Duration d) {
    if (d.isNegative()) {
      return Duration.ZERO;
    }
    return d.compareTo(MAX) > 0 ? MAX : d;
  }

  /**
   * {@code d} in nanoseconds, clamped to [0, {@link #MAX}]: never overflows.
   *
   * @param d the duration
   * @return its nanoseconds, saturated
   */
  public static long saturatedNanos(Duration d) {
    return clamp(d).toNanos();
  }

  /**
   * {@code d} checked not to be negative, then clamped to {@link #MAX}.
   *
   * @param d the duration, e.g. a grace
   * @param name what it is, for the error
   * @return {@code d}, at most {@link #MAX}
   * @throws NullPointerException if {@code d} is null
   * @throws IllegalArgumentException if {@code d} is negative
   */
  public static Duration nonNegative(Duration d, String name) {
    if (Objects.requireNonNull(d, name).isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative: " + d);
    }
    return clamp(d);
  }

  /**
   * Parses a grace or a wait in the {@link DurationText} grammar: bare numbers are milliseconds,
   * {@code 500ms}, {@code 10s}, {@code PT5M}; {@code 0} means none; values over {@link #MAX} clamp.
   *
   * @param text e.g. {@code 1500ms}
   * @return the duration, zero for {@code 0}
   * @throws IllegalArgumentException if the text is not a usable duration
   */
  public static Duration parse(String text) {
    return clamp(DurationText.parse(text, ChronoUnit.MILLIS));
  }
}
