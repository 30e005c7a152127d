package dev.lifecycle.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.time.Limit;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void pausesDoubleUpToTheCeiling() {
    Backoff backoff = Backoff.of(Duration.ofMillis(20), Duration.ofMillis(100));
    assertThat(backoff.nextNanos()).isEqualTo(20_000_000L);
    assertThat(backoff.nextNanos()).isEqualTo(40_000_000L);
    assertThat(backoff.nextNanos()).isEqualTo(80_000_000L);
    assertThat(backoff.nextNanos()).isEqualTo(100_000_000L);
    assertThat(backoff.nextNanos()).isEqualTo(100_000_000L);
  }

  @Test
  void aPauseNeverRunsPastTheDeadline() {
    Backoff backoff = Backoff.of(Duration.ofSeconds(10), Duration.ofSeconds(10));
    long deadline = System.nanoTime() + 5_000_000L;
    assertThat(backoff.nextNanos(deadline)).isBetween(1L, 5_000_000L);
    assertThat(backoff.nextNanos(System.nanoTime() - 1)).isNegative();
  }

  @Test
  void hugeCeilingsSaturateInsteadOfOverflowing() {
    Backoff backoff = Backoff.of(Duration.ofDays(10_000), Duration.ofSeconds(Long.MAX_VALUE));
    for (int i = 0; i < 10; i++) {
      assertThat(backoff.nextNanos()).isPositive().isLessThanOrEqualTo(Limit.MAX.toNanos());
    }
    assertThat(backoff.nextNanos()).isEqualTo(Limit.MAX.toNanos());
  }

  @Test
  void theClampBoundsEveryDurationToTheLimitMaximum() {
    assertThat(Durations.clamp(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Limit.MAX);
    assertThat(Durations.clamp(Duration.ofMillis(-5))).isZero();
    assertThat(Durations.saturatedNanos(Duration.ofSeconds(Long.MAX_VALUE)))
        .isEqualTo(Limit.MAX.toNanos());
    assertThat(Durations.parse("0")).isZero();
    assertThat(Durations.parse("1500ms")).isEqualTo(Duration.ofMillis(1500));
  }
}
