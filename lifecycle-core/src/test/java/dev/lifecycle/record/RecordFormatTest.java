package dev.lifecycle.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The record file's own readers: each must answer exactly as the JDK's would. */
class RecordFormatTest {

  @Test
  void createdInstantsReadAsTheJdkReadsThem() {
    SplittableRandom random = new SplittableRandom(42);
    long max = Instant.parse("9999-12-31T23:59:59.999999999Z").getEpochSecond();
    long min = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
    for (int i = 0; i < 20_000; i++) {
      int[] precision = {0, 1_000_000, 1_000, 1};
      int unit = precision[random.nextInt(precision.length)];
      int nanos = unit == 0 ? 0 : random.nextInt(1_000_000_000 / unit) * unit;
      Instant written = Instant.ofEpochSecond(random.nextLong(min, max + 1), nanos);
      assertThat(RecordFormat.instant(written.toString())).isEqualTo(written);
    }
    for (String text :
        new String[] {
          "1970-01-01T00:00:00Z",
          "0000-01-01T00:00:00Z",
          "9999-12-31T23:59:59.999999999Z",
          "2024-02-29T12:00:00.5Z", // one fraction digit: the JDK's parser reads it
          "2026-12-01T18:00:00.123456789Z",
          "+10000-01-01T00:00:00Z",
          "2026-12-01T23:59:60Z", // a leap second
          "2026-12-01T24:00:00Z", // the end of the day
        }) {
      assertThat(RecordFormat.instant(text)).as(text).isEqualTo(Instant.parse(text));
    }
  }

  @Test
  void malformedInstantsFailAsTheJdkFails() {
    for (String text :
        new String[] {
          "2026-13-01T00:00:00Z",
          "2026-02-30T00:00:00Z",
          "2025-02-29T00:00:00Z",
          "2026-12-01T00:60:00Z",
          "2026-12-0xT00:00:00Z",
          "2026-12-01T00:00:00",
          "2026-12-01 00:00:00Z",
          "",
        }) {
      assertThatThrownBy(() -> RecordFormat.instant(text))
          .as(text)
          .isInstanceOf(DateTimeParseException.class);
    }
  }
}
