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
import java.util.regex.Pattern;

/**
 * The one duration grammar of lifecycle, for limits ({@code dev.lifecycle.time.Limit#parse}) and
 * for graces and waits ({@link Durations#parse}) alike. Surrounding whitespace is ignored; accepted
 * are a non-negative integer in the default unit, an integer with a unit suffix {@code ns us ms s m
 * h d}, and an ISO-8601 duration ({@code PT5M}); everything else is refused with the reason.
 * Stateless and thread-safe.
 */
public final class DurationText {
  private static final Map<String, ChronoUnit> SUFFIXES =
      Map.of(
          "ns", NANOS, "us", MICROS, "ms", MILLIS, "s", SECONDS, "m", MINUTES, "h", HOURS, "d",
          DAYS);
  private static final Pattern FRACTION_EXPONENT_OR_HEX =
      Pattern.compile("[.,].*|[eE][+-]?[0-9].*|[xX][0-9a-fA-F].*");
  private static final String NEGATIVE = "negative values are not allowed (0 disables the limit)";
  private static final Duration LONGEST = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

  private DurationText() {}

  /**
   * Parses {@code text} strictly, unclamped.
   *
   * @param text e.g. {@code 30}, {@code 500ms}, {@code 10m}, {@code PT5M} or {@code 0}
   * @param defaultUnit the unit of a bare integer
   * @return the duration as requested (zero for {@code 0}; the longest {@link Duration} when the
   *     amount does not even fit one)
   * @throws IllegalArgumentException with the reason (without the text) if the text is refused
   */
  public static Duration parse(String text, ChronoUnit defaultUnit) {
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
    if (FRACTION_EXPONENT_OR_HEX.matcher(suffix).matches()) {
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
    return of(amount, unit);
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
  public static Duration of(long amount, ChronoUnit unit) {
    try {
      return Duration.of(amount, unit);
    } catch (ArithmeticException beyondDuration) {
      return LONGEST; // e.g. Long.MAX_VALUE days: far past any clamp
    }
  }
}
