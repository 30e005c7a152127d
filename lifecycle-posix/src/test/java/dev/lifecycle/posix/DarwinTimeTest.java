package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** macOS conversions and the macOS refusal, pure Java: runnable on any OS. */
class DarwinTimeTest {

  @Test
  void startTimesAreTheJdksEpochMilliseconds() {
    // the JDK on macOS: p_starttime.tv_sec * 1000 + p_starttime.tv_usec / 1000
    assertThat(DarwinTime.startMillis(1_700_000_000L, 999_999)).isEqualTo(1_700_000_000_999L);
    assertThat(DarwinTime.startMillis(1_700_000_000L, 1_000)).isEqualTo(1_700_000_000_001L);
    assertThat(DarwinTime.startMillis(1_700_000_000L, 999)).isEqualTo(1_700_000_000_000L);
    assertThat(DarwinTime.startMillis(1_700_000_000L, 0))
        .isEqualTo(Instant.ofEpochSecond(1_700_000_000L).toEpochMilli());
  }

  @Test
  void impossibleTimevalsAreRejected() {
    assertThatThrownBy(() -> DarwinTime.startMillis(-1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DarwinTime.startMillis(1, 1_000_000))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DarwinTime.startMillis(Long.MAX_VALUE, 0))
        .isInstanceOf(ArithmeticException.class);
  }

  @Test
  void macosIsRefusedUnlessTheExperimentalSwitchIsSet() {
    assertThat(PosixPlatform.refusal(OsConstants.DARWIN, false))
        .hasValueSatisfying(
            reason ->
                assertThat(reason)
                    .contains("experimental and untested")
                    .contains(PosixPlatform.EXPERIMENTAL_MACOS + "=true")
                    .contains(PosixPlatform.EXPERIMENTAL_MACOS_VARIABLE));
    assertThat(PosixPlatform.refusal(OsConstants.DARWIN, true)).isEmpty();
    assertThat(PosixPlatform.refusal(OsConstants.LINUX, false)).isEmpty();
  }

  @Test
  void bootIdsDifferPerBoot() {
    assertThat(DarwinTime.bootId(1_700_000_000L, 5)).isEqualTo("boottime-1700000000.5");
    assertThat(DarwinTime.bootId(1_700_000_000L, 5))
        .isNotEqualTo(DarwinTime.bootId(1_700_000_001L, 5));
  }
}
