package dev.lifecycle.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.testing.Stderr;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LimitTest {
  private static final Duration CENTURY = Duration.ofDays(36_500);

  @Test
  void disabledHasNoDuration() {
    Limit limit = Limit.disabled();
    assertThat(limit.isEnabled()).isFalse();
    assertThat(limit.isClamped()).isFalse();
    assertThat(limit.asOptional()).isEmpty();
    assertThat(limit).hasToString("disabled");
    assertThatThrownBy(limit::duration)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("disabled");
    assertThatThrownBy(limit::toNanos).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(limit::requested).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void zeroIsDisabled() {
    assertThat(Limit.of(Duration.ZERO)).isEqualTo(Limit.disabled());
    assertThat(Limit.ofMillis(0)).isEqualTo(Limit.disabled());
    assertThat(Limit.ofDays(0).isEnabled()).isFalse();
  }

  @Test
  void positiveDurationIsEnabled() {
    Limit limit = Limit.of(Duration.ofMinutes(5));
    assertThat(limit.isEnabled()).isTrue();
    assertThat(limit.duration()).isEqualTo(Duration.ofMinutes(5));
    assertThat(limit.requested()).isEqualTo(Duration.ofMinutes(5));
    assertThat(limit.isClamped()).isFalse();
    assertThat(limit.toNanos()).isEqualTo(300_000_000_000L);
    assertThat(limit.asOptional()).contains(Duration.ofMinutes(5));
    assertThat(limit).hasToString("5m");
    assertThat(limit).isEqualTo(Limit.ofMinutes(5)).hasSameHashCodeAs(Limit.ofSeconds(300));
    assertThat(limit).isNotEqualTo(Limit.ofMinutes(6)).isNotEqualTo(Limit.disabled());
  }

  @Test
  void negativeAndNullAreRejected() {
    assertThatThrownBy(() -> Limit.of(Duration.ofSeconds(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative")
        .hasMessageContaining("PT-5S");
    assertThatThrownBy(() -> Limit.ofMillis(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative");
    assertThatThrownBy(() -> Limit.of(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> Limit.of(1, ChronoUnit.MONTHS))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void maxIsNotClamped() {
    Limit limit = Limit.of(Limit.MAX);
    assertThat(limit.duration()).isEqualTo(CENTURY);
    assertThat(limit.isClamped()).isFalse();
  }

  @Test
  void longerThanMaxIsClampedVisibly() {
    Duration threeCenturies = Duration.ofDays(3 * 36_500);
    Limit limit = Limit.of(threeCenturies);
    assertThat(limit.duration()).isEqualTo(Limit.MAX);
    assertThat(limit.isClamped()).isTrue();
    assertThat(limit.requested()).isEqualTo(threeCenturies);
    assertThat(limit).hasToString("36500d (clamped from 109500d)");
    assertThat(limit).isNotEqualTo(Limit.of(Limit.MAX));
  }

  @ParameterizedTest(name = "{0} ns reads {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "1                      | 1ns",
        "999                    | 999ns",
        "250000                 | 250us",
        "500000000              | 500ms",
        "1040000000             | 1.04 s",
        "1041000000             | 1.041 s",
        "1041500000             | ~1.042 s",
        "5000000000             | 5s",
        "90000000000            | 90s",
        "600000000000           | 10m",
        "5400000000000          | 90m",
        "86400000000000         | 1d",
        "90000000000000         | 25h",
        "129600000000000        | 36h",
        "60000000000000000      | ~694.444 d",
      })
  void toStringReadsLikeTheParserWritesIt(long nanos, String expected) {
    assertThat(Limit.of(Duration.ofNanos(nanos))).hasToString(expected);
  }

  @Test
  void wholeToStringsParseBackToTheSameLimit() {
    for (Limit limit :
        new Limit[] {
          Limit.ofMillis(500),
          Limit.ofSeconds(90),
          Limit.ofMinutes(10),
          Limit.ofHours(25),
          Limit.ofDays(30),
          Limit.of(Duration.ofNanos(7))
        }) {
      assertThat(Limit.parse(limit.toString())).as(limit.toString()).isEqualTo(limit);
    }
  }

  @Test
  void toStringOfAClampShowsWhatWasAskedEvenPastDuration() {
    assertThat(Limit.ofDays(Long.MAX_VALUE).toString())
        .startsWith("36500d (clamped from ~")
        .endsWith(" d)");
    assertThat(Limit.of(Duration.ofSeconds(Long.MAX_VALUE)).toString())
        .isEqualTo("36500d (clamped from ~106751991167300.646 d)");
  }

  @Test
  void hugeValuesClampWithoutOverflow() {
    Limit seconds = Limit.of(Duration.ofSeconds(Long.MAX_VALUE));
    assertThat(seconds.duration()).isEqualTo(Limit.MAX);
    assertThat(seconds.toNanos()).isEqualTo(CENTURY.toNanos()).isPositive();
    assertThat(seconds.requested()).isEqualTo(Duration.ofSeconds(Long.MAX_VALUE));

    Limit days = Limit.ofDays(Long.MAX_VALUE); // does not even fit a Duration
    assertThat(days.duration()).isEqualTo(Limit.MAX);
    assertThat(days.isClamped()).isTrue();
    assertThat(days.requested()).isGreaterThan(Duration.ofSeconds(Long.MAX_VALUE - 1));
    assertThat(Limit.ofMillis(Long.MAX_VALUE).toNanos()).isEqualTo(CENTURY.toNanos());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "5000       | PT5S",
        "  5000     | PT5S",
        "1          | PT0.001S",
        "500ms      | PT0.5S",
        "1500000ns  | PT0.0015S",
        "250us      | PT0.00025S",
        "90s        | PT1M30S",
        "10m        | PT10M",
        "24h        | PT24H",
        "30d        | PT720H",
        "PT5M       | PT5M",
        "pt5m       | PT5M",
        "P1D        | PT24H",
        "PT1H30M    | PT1H30M",
        "007        | PT0.007S",
      })
  void parsesValidText(String text, String expected) {
    Limit limit = Limit.parse(text);
    assertThat(limit.duration()).isEqualTo(Duration.parse(expected));
    assertThat(limit.isClamped()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", " 0 ", "0ms", "0d", "PT0S", "P0D"})
  void parsesZeroAsDisabled(String text) {
    assertThat(Limit.parse(text)).isEqualTo(Limit.disabled());
  }

  @Test
  void bareIntegersUseTheDefaultUnit() {
    assertThat(Limit.parse("5", ChronoUnit.SECONDS).duration()).isEqualTo(Duration.ofSeconds(5));
    assertThat(Limit.parse("5m", ChronoUnit.SECONDS).duration()).isEqualTo(Duration.ofMinutes(5));
    assertThatThrownBy(() -> Limit.parse("5", ChronoUnit.YEARS))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void hugeButRepresentableIsClampedNotRejected() {
    for (String text :
        new String[] {"9223372036854775807d", "9223372036854775807", "36501d", "PT2628000H"}) {
      Limit limit = Limit.parse(text);
      assertThat(limit.duration()).as(text).isEqualTo(Limit.MAX);
      assertThat(limit.isClamped()).as(text).isTrue();
    }
    assertThat(Limit.parse("36500d").isClamped()).isFalse();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '\'',
      value = {
        "''                     | blank",
        "'   '                  | blank",
        "abc                    | not a number",
        "soon                   | not a number",
        "-1                     | negative",
        "-5                     | negative",
        "-5s                    | negative",
        "-0                     | negative",
        "PT-5S                  | negative",
        "-PT5S                  | negative",
        "NaN                    | NaN",
        "Infinity               | infinity",
        "+Infinity              | infinity",
        "-Infinity              | negative",
        "1e3                    | smaller unit",
        "1.5                    | smaller unit",
        "1.5s                   | smaller unit",
        ".5                     | smaller unit",
        "0x10                   | smaller unit",
        "10x                    | unknown unit \"x\"",
        "10M                    | unknown unit \"M\"",
        "10 m                   | unknown unit",
        "5 weeks                | unknown unit",
        "+5                     | not a number",
        "99999999999999999999   | too large",
        "99999999999999999999ms | too large",
        "PT99999999999999999999H | too large",
        "P1Y                    | ISO-8601",
        "PT                     | ISO-8601",
      })
  void rejectsUnusableTextWithReason(String text, String reason) {
    assertThatThrownBy(() -> Limit.parse(text))
        .isInstanceOfSatisfying(
            LimitFormatException.class,
            e -> {
              assertThat(e.input()).isEqualTo(text);
              assertThat(e.reason()).contains(reason);
              assertThat(e.getMessage()).startsWith("Invalid limit \"" + text + "\": ");
            });
  }

  @Test
  void rejectsNull() {
    assertThatThrownBy(() -> Limit.parse(null))
        .isInstanceOf(LimitFormatException.class)
        .hasMessage("Invalid limit null: no value");
  }

  @Test
  void parseOrFallsBackOnUnusableTextAndWarns() {
    Limit fallback = Limit.ofMinutes(10);
    String log = Stderr.during(() -> Limit.parseOr("soon", fallback, "environment variable X_MS"));
    assertThat(log)
        .contains("WARN")
        .contains("environment variable X_MS")
        .contains("\"soon\"")
        .contains("not a number")
        .contains("using 10m");
    for (String text : new String[] {"", "   ", "abc", "-1", "-5", "NaN", "Infinity", "1e3"}) {
      assertThat(Limit.parseOr(text, fallback, "test")).as(text).isEqualTo(fallback);
    }
  }

  @Test
  void parseOrUsesUsableText() {
    Limit fallback = Limit.ofMinutes(10);
    assertThat(Stderr.during(() -> Limit.parseOr("5000", fallback, "x"))).isEmpty();
    assertThat(Limit.parseOr("5000", fallback, "x")).isEqualTo(Limit.ofSeconds(5));
    assertThat(Limit.parseOr("0", fallback, "x")).isEqualTo(Limit.disabled());
  }

  @Test
  void parseOrTreatsNullAsAbsentSilently() {
    Limit fallback = Limit.ofMinutes(10);
    assertThat(Stderr.during(() -> Limit.parseOr(null, fallback, "x"))).isEmpty();
    assertThat(Limit.parseOr(null, fallback, "x")).isSameAs(fallback);
  }

  @Test
  void fromConfigPrecedence() {
    Limit dflt = Limit.ofMinutes(10);
    Map<String, String> none = Map.of();
    Map<String, String> props = Map.of("idle", "5s");
    Map<String, String> env = Map.of("IDLE_MS", "7000");
    assertThat(Limit.fromConfig("idle", "IDLE_MS", dflt, none::get, none::get)).isEqualTo(dflt);
    assertThat(Limit.fromConfig("idle", "IDLE_MS", dflt, none::get, env::get))
        .isEqualTo(Limit.ofSeconds(7));
    assertThat(Limit.fromConfig("idle", "IDLE_MS", dflt, props::get, none::get))
        .isEqualTo(Limit.ofSeconds(5));
    assertThat(Limit.fromConfig("idle", "IDLE_MS", dflt, props::get, env::get))
        .isEqualTo(Limit.ofSeconds(5));
    assertThat(Limit.fromConfig(null, null, dflt, props::get, env::get)).isEqualTo(dflt);
    assertThat(Limit.fromConfig("idle", "IDLE_MS", dflt, none::get, Map.of("IDLE_MS", "0")::get))
        .isEqualTo(Limit.disabled());
  }

  @Test
  void fromConfigUnusableValueFallsToTheNextSource() {
    Limit dflt = Limit.ofMinutes(10);
    Map<String, String> badProps = Map.of("idle", "soon");
    Map<String, String> env = Map.of("IDLE_MS", "7000");
    Map<String, String> badEnv = Map.of("IDLE_MS", "-1");
    assertThat(Limit.fromConfig("idle", "IDLE_MS", dflt, badProps::get, env::get))
        .isEqualTo(Limit.ofSeconds(7));
    assertThat(Limit.fromConfig("idle", "IDLE_MS", dflt, badProps::get, badEnv::get))
        .isEqualTo(dflt);
    String log =
        Stderr.during(() -> Limit.fromConfig("idle", "IDLE_MS", dflt, badProps::get, badEnv::get));
    assertThat(log).contains("system property idle").contains("environment variable IDLE_MS");
  }

  @Test
  void fromConfigReadsSystemProperties() {
    String name = "dev.lifecycle.time.LimitTest." + System.nanoTime();
    System.setProperty(name, "42s");
    try {
      assertThat(Limit.fromConfig(name, null, Limit.disabled())).isEqualTo(Limit.ofSeconds(42));
    } finally {
      System.clearProperty(name);
    }
    assertThat(Limit.fromConfig(name, null, Limit.ofSeconds(1))).isEqualTo(Limit.ofSeconds(1));
  }
}
