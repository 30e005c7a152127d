package dev.lifecycle.process.spi;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.UnsafeSignalException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SignalSafetyTest {

  @ParameterizedTest
  @ValueSource(longs = {1, 0, -1, -1234, Long.MIN_VALUE, 1L << 32})
  void refusesPidsThatAreNeverOurs(long pid) {
    assertThatThrownBy(() -> SignalSafety.checkPid(pid))
        .isInstanceOf(UnsafeSignalException.class)
        .hasMessageContaining(Long.toString(pid));
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 0, -1, Long.MAX_VALUE})
  void refusesGroupsThatAreNeverOurs(long pgid) {
    assertThatThrownBy(() -> SignalSafety.checkGroup(pgid, 999))
        .isInstanceOf(UnsafeSignalException.class);
  }

  @Test
  void refusesTheJvmsOwnGroup() {
    assertThatThrownBy(() -> SignalSafety.checkGroup(4321, 4321))
        .isInstanceOf(UnsafeSignalException.class)
        .hasMessageContaining("contains this JVM");
  }

  @Test
  void acceptsOrdinaryTargets() {
    assertThatCode(() -> SignalSafety.checkPid(2)).doesNotThrowAnyException();
    assertThatCode(() -> SignalSafety.checkGroup(4321, 4320)).doesNotThrowAnyException();
  }
}
