package dev.lifecycle.internal;

import static java.time.temporal.ChronoUnit.DAYS;
import static java.time.temporal.ChronoUnit.HOURS;
import static java.time.temporal.ChronoUnit.MICROS;
import static java.time.temporal.ChronoUnit.MILLIS;
import static java.time.temporal.ChronoUnit.MINUTES;
import static java.time.temporal.ChronoUnit.NANOS;
import static java.time.temporal.ChronoUnit.SECONDS;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The one saturating clamp of the library's durations, and the one duration grammar (for limits,
 * {@code dev.lifecycle.time.Limit#parse}, and for graces and waits, {@link #parse}: surrounding
 * whitespace ignored; a non-negative integer in the default unit, an integer with a unit suffix
 * {@code ns us ms s m h d}, or an ISO-8601 duration such as {@code PT5M}). Every duration handed to
 * a deadline or a scheduler is at most {@link #MAX} (100 years): its nanoseconds fit a {@code
 * long}, and so does a deadline of {@link System#nanoTime()} plus it, so no wait overflows into an
 * early end. Stateless and thread-safe.
 */
public final class Durations {
  /**
   * 100 years, "effectively never" (published as {@code dev.lifecycle.time.Limit#MAX}). Its
   * nanosecond count (about 3.2e18) fits a {@code long} with room to spare, which is why it is the
   * clamp and not something larger.
   */
  public static final Duration MAX = Duration.ofDays(36_500);

  private static final Map<String, ChronoUnit> SUFFIXES =
      Map.of(
          "ns", NANOS, "us", MICROS, "ms", MILLIS, "s", SECONDS, "m", MINUTES, "h", HOURS, "d",
          DAYS);
  private static final String NEGATIVE = "negative values are not allowed (0 disables the limit)";
  private static final Duration LONGEST = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

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
   * Parses a grace or a wait in the the grammar of {@link #parseUnclamped} grammar: bare numbers
   * are milliseconds, {@code 500ms}, {@code 10s}, {@code PT5M}; {@code 0} means none; values over
   * {@link #MAX} clamp.
   *
   * @param text e.g. {@code 1500ms}
   * @return the duration, zero for {@code 0}
   * @throws IllegalArgumentException if the text is not a usable duration
   */
  public static Duration parse(String text) {
    return clamp(parseUnclamped(text, ChronoUnit.MILLIS));
  }

  /**
   * Parses {@code text} strictly, unclamped.
   *
   * @param text e.g. {@code 30}, {@code 500ms}, {@code 10m}, {@code PT5M} or {@code 0}
   * @param defaultUnit the unit of a bare integer
   * @return the duration as requested (zero for {@code 0}; the longest {@link Duration} when the
   *     amount does not even fit one)
   * @throws IllegalArgumentException with the reason (without the text) if the text is refused
   */
  public static Duration parseUnclamped(String text, ChronoUnit defaultUnit) {
    Objects.requireNonNull(defaultUnit, "defaultUnit");
    if (text == null) {
      throw new IllegalArgumentException("no value");
    }
    String s = text.strip();
    if (s.isEmpty()) {
      throw new IllegalArgumentException("blank");
    }
    if (s.charAt(0) == '-') {
      throw new IllegalArgumentException(NEGATIVE);
    }
    if (s.charAt(0) == 'P' || s.charAt(0) == 'p') {
      return parseIso(s);
    }
    String lower = s.toLowerCase(Locale.ROOT);
    if (lower.equals("nan")) {
      throw new IllegalArgumentException("NaN is not a duration");
    }
    if (lower.startsWith("inf") || lower.startsWith("+inf")) {
      throw new IllegalArgumentException(
          "infinity is not a duration (0 disables the limit; values over 100 years clamp)");
    }
    int end = 0;
    while (end < s.length() && s.charAt(end) >= '0' && s.charAt(end) <= '9') {
      end++;
    }
    String digits = s.substring(0, end);
    String suffix = s.substring(end);
    if (isFractionExponentOrHex(suffix)) {
      throw new IllegalArgumentException(
          "only whole numbers are allowed, no fractions, exponents or hex;"
              + " use a smaller unit instead (e.g. 1500ms for 1.5s)");
    }
    if (digits.isEmpty()) {
      throw new IllegalArgumentException(
          "not a number (expected e.g. 5000, 500ms, 10m, 24h, 30d or PT5M; 0 disables)");
    }
    ChronoUnit unit = suffix.isEmpty() ? defaultUnit : SUFFIXES.get(suffix);
    if (unit == null) {
      throw new IllegalArgumentException(
          "unknown unit \"" + suffix + "\" (use ns, us, ms, s, m, h or d)");
    }
    long amount;
    try {
      amount = Long.parseLong(digits);
    } catch (NumberFormatException overflow) { // the only cause left: all ASCII digits
      throw new IllegalArgumentException("number too large (does not fit a 64-bit integer)");
    }
    return ofUnclamped(amount, unit);
  }

  /** {@code .5}, {@code ,5}, {@code e3}, {@code E+3}, {@code x1f}: what follows the digits. */
  private static boolean isFractionExponentOrHex(String suffix) {
    if (suffix.isEmpty()) {
      return false;
    }
    char first = suffix.charAt(0);
    if (first == '.' || first == ',') {
      return true;
    }
    int next = 1;
    if (first == 'e' || first == 'E') {
      if (next < suffix.length() && (suffix.charAt(next) == '+' || suffix.charAt(next) == '-')) {
        next++;
      }
      return next < suffix.length() && Ascii.isDigit(suffix.charAt(next));
    }
    return (first == 'x' || first == 'X')
        && next < suffix.length()
        && Ascii.isHexDigit(suffix.charAt(next));
  }

  private static Duration parseIso(String iso) {
    Duration parsed;
    try {
      parsed = Duration.parse(iso);
    } catch (DateTimeParseException e) {
      boolean overflow =
          e.getCause() instanceof ArithmeticException
              || e.getCause() instanceof NumberFormatException;
      throw new IllegalArgumentException(
          overflow
              ? "number too large for an ISO-8601 duration"
              : "not a valid ISO-8601 duration (expected e.g. PT5M, PT1H30M, P1D)");
    }
    if (parsed.isNegative()) {
      throw new IllegalArgumentException(NEGATIVE);
    }
    return parsed;
  }

  /**
   * {@code amount} {@code unit}s, or the longest {@link Duration} when that does not fit one.
   *
   * @param amount how many units, not negative
   * @param unit the unit
   * @return the duration, unclamped
   */
  public static Duration ofUnclamped(long amount, ChronoUnit unit) {
    try {
      return Duration.of(amount, unit);
    } catch (ArithmeticException beyondDuration) {
      return LONGEST; // e.g. Long.MAX_VALUE days: far past any clamp
    }
  }
}
