package dev.lifecycle.time;

import static java.time.temporal.ChronoUnit.DAYS;
import static java.time.temporal.ChronoUnit.HOURS;
import static java.time.temporal.ChronoUnit.MILLIS;
import static java.time.temporal.ChronoUnit.MINUTES;
import static java.time.temporal.ChronoUnit.NANOS;
import static java.time.temporal.ChronoUnit.SECONDS;
import static java.util.Objects.requireNonNull;

import dev.lifecycle.internal.Durations;
import dev.lifecycle.internal.LazyLogger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * A time limit (TTL, idle timeout, startup bound): either enabled with a positive {@link Duration},
 * or disabled. Immutable and thread-safe.
 *
 * <p>Durations longer than {@link #MAX} (100 years, "effectively never") are clamped to it rather
 * than rejected, and the clamp stays visible through {@link #isClamped()} and {@link #requested()}.
 * Clamping keeps every enabled limit representable in nanoseconds as a {@code long}, so no
 * scheduler can overflow it into an early fire.
 *
 * <p>Text grammar ({@link #parse(String)}), surrounding whitespace ignored:
 *
 * <ul>
 *   <li>{@code 0} (in any unit): disabled;
 *   <li>a non-negative integer: an amount in the default unit (milliseconds for {@code
 *       parse(text)});
 *   <li>an integer with a unit suffix {@code ns us ms s m h d}: {@code 500ms}, {@code 10m}, {@code
 *       24h}, {@code 30d};
 *   <li>an ISO-8601 duration as accepted by {@link Duration#parse}: {@code PT5M}, {@code P1D}.
 * </ul>
 *
 * Everything else is a {@link LimitFormatException}: blank, non-numeric, negative, NaN, infinite,
 * fractions, exponent or hex notation, unknown units, and integers that do not fit a {@code long}.
 * An integer that fits but exceeds {@link #MAX} after unit conversion is clamped, not an error.
 *
 * <p>Two limits are equal when both the effective and the requested duration are equal.
 */
public final class Limit {
  /**
   * 100 years, "effectively never". Its nanosecond count (about 3.2e18) fits a {@code long} with
   * room to spare, which is why it is the clamp and not something larger.
   */
  public static final Duration MAX = Durations.MAX;

  private static final Limit DISABLED = new Limit(null, null);
  private static final Set<ChronoUnit> UNITS = EnumSet.range(NANOS, DAYS);

  private static final LazyLogger LOG = LazyLogger.of(Limit.class);

  private final Duration duration; // null when disabled
  private final Duration requested; // null when disabled

  private Limit(Duration duration, Duration requested) {
    this.duration = duration;
    this.requested = requested;
  }

  /**
   * The disabled limit: guards armed with it never fire.
   *
   * @return the one disabled limit
   */
  public static Limit disabled() {
    return DISABLED;
  }

  /**
   * A limit of {@code duration}: zero means disabled, anything above {@link #MAX} is clamped.
   *
   * @param duration how long; zero disables
   * @return the limit, clamped to {@link #MAX} if longer
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public static Limit of(Duration duration) {
    requireNonNull(duration, "duration");
    if (duration.isNegative()) {
      throw new IllegalArgumentException(
          "A limit must not be negative: " + duration + " (use Limit.disabled() to disable it)");
    }
    if (duration.isZero()) {
      return DISABLED;
    }
    return new Limit(Durations.clamp(duration), duration);
  }

  /**
   * A limit of {@code amount} {@code unit}s ({@link ChronoUnit#NANOS} through {@link
   * ChronoUnit#DAYS}); never overflows: amounts beyond {@link #MAX} are clamped.
   *
   * @param amount how many units; zero disables
   * @param unit the unit of {@code amount}
   * @return the limit, clamped to {@link #MAX} if longer
   * @throws IllegalArgumentException if {@code amount} is negative or the unit unsupported
   */
  public static Limit of(long amount, ChronoUnit unit) {
    checkUnit(unit);
    if (amount < 0) {
      throw new IllegalArgumentException(
          "A limit must not be negative: " + amount + " " + unit + " (0 disables it)");
    }
    return of(Durations.ofUnclamped(amount, unit));
  }

  /**
   * A limit of {@code millis} milliseconds, as by {@link #of(long, ChronoUnit)}.
   *
   * @param millis how many milliseconds; zero disables
   * @return the limit, clamped to {@link #MAX} if longer
   * @throws IllegalArgumentException if negative
   */
  public static Limit ofMillis(long millis) {
    return of(millis, MILLIS);
  }

  /**
   * A limit of {@code seconds} seconds, as by {@link #of(long, ChronoUnit)}.
   *
   * @param seconds how many seconds; zero disables
   * @return the limit, clamped to {@link #MAX} if longer
   * @throws IllegalArgumentException if negative
   */
  public static Limit ofSeconds(long seconds) {
    return of(seconds, SECONDS);
  }

  /**
   * A limit of {@code minutes} minutes, as by {@link #of(long, ChronoUnit)}.
   *
   * @param minutes how many minutes; zero disables
   * @return the limit, clamped to {@link #MAX} if longer
   * @throws IllegalArgumentException if negative
   */
  public static Limit ofMinutes(long minutes) {
    return of(minutes, MINUTES);
  }

  /**
   * A limit of {@code hours} hours, as by {@link #of(long, ChronoUnit)}.
   *
   * @param hours how many hours; zero disables
   * @return the limit, clamped to {@link #MAX} if longer
   * @throws IllegalArgumentException if negative
   */
  public static Limit ofHours(long hours) {
    return of(hours, HOURS);
  }

  /**
   * A limit of {@code days} days, as by {@link #of(long, ChronoUnit)}.
   *
   * @param days how many days; zero disables
   * @return the limit, clamped to {@link #MAX} if longer
   * @throws IllegalArgumentException if negative
   */
  public static Limit ofDays(long days) {
    return of(days, DAYS);
  }

  /**
   * Parses {@code text} strictly; a bare integer is milliseconds. See the class javadoc.
   *
   * @param text e.g. {@code 5000}, {@code 500ms}, {@code 10m}, {@code PT5M} or {@code 0}
   * @return the limit; {@code 0} gives the disabled one
   * @throws LimitFormatException if the text is not a usable limit
   */
  public static Limit parse(String text) {
    return parse(text, MILLIS);
  }

  /**
   * Parses {@code text} strictly; a bare integer is in {@code defaultUnit}.
   *
   * @param text e.g. {@code 30}, {@code 500ms}, {@code 10m}, {@code PT5M} or {@code 0}
   * @param defaultUnit the unit of a bare integer
   * @return the limit; {@code 0} gives the disabled one
   * @throws LimitFormatException if the text is not a usable limit
   */
  public static Limit parse(String text, ChronoUnit defaultUnit) {
    checkUnit(defaultUnit);
    try {
      return of(Durations.parseUnclamped(text, defaultUnit));
    } catch (IllegalArgumentException e) {
      throw new LimitFormatException(text, e.getMessage());
    }
  }

  /**
   * Lenient parsing for configuration: {@code text} as by {@link #parse(String)}, or {@code
   * fallback} when it is unusable, after logging one WARN that names {@code origin} (e.g.
   * "environment variable FOO_MS"), the value and the reason. A null {@code text} means "not
   * configured" and returns {@code fallback} silently. Note that unusable text falls back; it never
   * means "disabled": only {@code 0} does.
   *
   * @param text the configured text, or null when nothing is configured
   * @param fallback what to use when {@code text} is null or unusable
   * @param origin where the text came from, for the warning
   * @return the parsed limit, or {@code fallback}
   */
  public static Limit parseOr(String text, Limit fallback, String origin) {
    requireNonNull(fallback, "fallback");
    if (text == null) {
      return fallback;
    }
    try {
      return parse(text);
    } catch (LimitFormatException e) {
      LOG.warn("Ignoring {}: {}; using {}", origin, e.getMessage(), fallback);
      return fallback;
    }
  }

  /**
   * Resolves a limit from the JVM's system properties and environment, as {@link
   * #fromConfig(String, String, Limit, Function, Function)} with {@link System#getProperty} and
   * {@link System#getenv}.
   *
   * @param systemProperty the system property to read, or null to skip it
   * @param environmentVariable the environment variable to read, or null to skip it
   * @param programmaticDefault what to use when neither source gives a usable value
   * @return the resolved limit
   */
  public static Limit fromConfig(
      String systemProperty, String environmentVariable, Limit programmaticDefault) {
    // Looked up here, not through method references: each is a lambda class to link.
    return choose(
        systemProperty,
        systemProperty == null ? null : System.getProperty(systemProperty),
        environmentVariable,
        environmentVariable == null ? null : System.getenv(environmentVariable),
        programmaticDefault);
  }

  /**
   * Resolves a limit with this precedence, highest first: the system property named {@code
   * systemProperty}, the environment variable named {@code environmentVariable}, then {@code
   * programmaticDefault}. Each name may be null to skip that source. Values use the {@link
   * #parse(String)} grammar (bare integers are milliseconds). An unusable value is logged as a WARN
   * and the next source down is used, so a typo never disables a guard.
   *
   * @param systemProperty the system property to read, or null to skip it
   * @param environmentVariable the environment variable to read, or null to skip it
   * @param programmaticDefault what to use when neither source gives a usable value
   * @param systemProperties looks up a system property by name (null when absent)
   * @param environment looks up an environment variable by name (null when absent)
   * @return the resolved limit
   */
  public static Limit fromConfig(
      String systemProperty,
      String environmentVariable,
      Limit programmaticDefault,
      Function<String, String> systemProperties,
      Function<String, String> environment) {
    return choose(
        systemProperty,
        systemProperty == null ? null : systemProperties.apply(systemProperty),
        environmentVariable,
        environmentVariable == null ? null : environment.apply(environmentVariable),
        programmaticDefault);
  }

  private static Limit choose(
      String systemProperty,
      String propertyText,
      String environmentVariable,
      String environmentText,
      Limit programmaticDefault) {
    requireNonNull(programmaticDefault, "programmaticDefault");
    Limit limit = programmaticDefault;
    if (environmentVariable != null) {
      limit = parseOr(environmentText, limit, "environment variable " + environmentVariable);
    }
    if (systemProperty != null) {
      limit = parseOr(propertyText, limit, "system property " + systemProperty);
    }
    return limit;
  }

  /**
   * Whether this limit ever fires.
   *
   * @return true for a positive duration, false when disabled
   */
  public boolean isEnabled() {
    return duration != null;
  }

  /**
   * The effective duration, at most {@link #MAX}.
   *
   * @return the duration after clamping
   * @throws IllegalStateException if disabled
   */
  public Duration duration() {
    checkEnabled();
    return duration;
  }

  /**
   * The effective duration in nanoseconds; cannot overflow, since it is at most {@link #MAX}.
   *
   * @return the duration after clamping, in nanoseconds
   * @throws IllegalStateException if disabled: there is deliberately no "0 means disabled" number,
   *     because a zero delay handed to a scheduler fires at once instead of never
   */
  public long toNanos() {
    checkEnabled();
    return duration.toNanos();
  }

  /**
   * The effective duration, if enabled.
   *
   * @return the duration after clamping, or empty when disabled
   */
  public Optional<Duration> asOptional() {
    return Optional.ofNullable(duration);
  }

  /**
   * Whether the requested duration exceeded {@link #MAX} and was clamped to it.
   *
   * @return true when {@link #duration()} is shorter than {@link #requested()}
   */
  public boolean isClamped() {
    return duration != null && !duration.equals(requested);
  }

  /**
   * The duration as requested before clamping (the longest {@link Duration} if the request did not
   * even fit one).
   *
   * @return the requested duration
   * @throws IllegalStateException if disabled
   */
  public Duration requested() {
    checkEnabled();
    return requested;
  }

  private void checkEnabled() {
    if (duration == null) {
      throw new IllegalStateException("Limit is disabled; check isEnabled() first");
    }
  }

  private static void checkUnit(ChronoUnit unit) {
    requireNonNull(unit, "unit");
    if (!UNITS.contains(unit)) {
      throw new IllegalArgumentException("Unsupported unit " + unit + ": use NANOS through DAYS");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Limit
        && Objects.equals(duration, ((Limit) o).duration)
        && Objects.equals(requested, ((Limit) o).requested);
  }

  @Override
  public int hashCode() {
    return Objects.hash(duration, requested);
  }

  /**
   * The limit as a person reads it in a log: {@code "disabled"}; a whole number of the largest unit
   * that fits, in the parser's own notation ({@code "10m"}, {@code "24h"}, {@code "500ms"}), or of
   * the next smaller unit when that stays under 1000 ({@code "90m"}, not {@code "1.5h"}); otherwise
   * a decimal in the largest unit ({@code "1.04 s"}), prefixed with {@code "~"} when rounded to
   * three decimals. A clamp is always shown: {@code "36500d (clamped from 109500d)"}.
   */
  @Override
  public String toString() {
    if (duration == null) {
      return "disabled";
    }
    return isClamped()
        ? LimitText.format(duration) + " (clamped from " + LimitText.format(requested) + ")"
        : LimitText.format(duration);
  }
}
