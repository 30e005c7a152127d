package dev.lifecycle.testkit;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations written in annotations: {@code "3s"}, {@code "500ms"}, {@code "1.5s"}, {@code
 * "2m"}, {@code "0"} or ISO-8601 ({@code "PT3S"}). Blank, negative or unparsable text is an error.
 */
public final class DurationText {
  private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m)?");

  private DurationText() {}

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException with the text and the accepted forms when unusable
   */
  public static Duration parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if (t.startsWith("pt") || t.startsWith("p")) {
      try {
        Duration d = Duration.parse(t.toUpperCase(Locale.ROOT));
        if (!d.isNegative()) {
          return d;
        }
      } catch (DateTimeParseException e) {
        // fall through to the error below
      }
    }
    Matcher m = SIMPLE.matcher(t);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "unusable duration '"
              + text
              + "': use e.g. 0, 500ms, 3s, 1.5s, 2m or ISO-8601 like PT3S");
    }
    BigDecimal value = new BigDecimal(m.group(1));
    String unit = m.group(2) == null ? (value.signum() == 0 ? "s" : null) : m.group(2);
    if (unit == null) {
      throw new IllegalArgumentException(
          "duration '" + text + "' needs a unit (ms, s or m); only 0 may go without one");
    }
    BigDecimal millis =
        switch (unit) {
          case "ms" -> value;
          case "s" -> value.movePointRight(3);
          default -> value.multiply(BigDecimal.valueOf(60_000));
        };
    return Duration.ofNanos(millis.movePointRight(6).longValue());
  }
}
