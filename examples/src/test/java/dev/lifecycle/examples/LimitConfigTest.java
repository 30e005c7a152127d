package dev.lifecycle.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.broker.BrokerLimits;
import dev.lifecycle.time.Guards;
import dev.lifecycle.time.Limit;
import dev.lifecycle.time.TimerHandle;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The examples' limits as they configure them: {@code lifecycle.broker.idleTimeout} (what the demo
 * sets) and the CLI's {@code example.cli.timeout} (scenarios 11-14; the library tests cover the
 * parser in depth).
 */
@dev.lifecycle.testkit.NoProcessLeaks
@org.junit.jupiter.api.Timeout(90) // a hang fails the test instead of the build
class LimitConfigTest {
  private static final String IDLE = BrokerLimits.IDLE.systemProperty();

  @AfterEach
  void clear() {
    System.clearProperty(IDLE);
    System.clearProperty("example.cli.timeout");
  }

  @ParameterizedTest(name = "B14: idleTimeout=\"{0}\" -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''|default",
        "'   '|default",
        "abc|default",
        "soon|default",
        "-1|default",
        "-5|default",
        "NaN|default",
        "Infinity|default",
        "1.5|default",
        "0|disabled",
        "5000|PT5S",
        "3s|PT3S",
        "2592000000|PT720H"
      })
  void unusableValuesFallBackToTheDefault(String value, String expected) {
    System.setProperty(IDLE, value);
    Limit limit = BrokerLimits.IDLE.resolve();
    switch (expected) {
      case "default" -> assertThat(limit).isEqualTo(BrokerLimits.IDLE.defaultLimit());
      case "disabled" -> assertThat(limit.isEnabled()).isFalse();
      default -> assertThat(limit.duration()).isEqualTo(Duration.parse(expected));
    }
  }

  @Test
  @DisplayName("B11: 0 disables rather than firing on the next tick")
  void zeroDisables() throws Exception {
    System.setProperty("example.cli.timeout", "0");
    Limit limit =
        Limit.fromConfig("example.cli.timeout", "EXAMPLE_CLI_TIMEOUT", Limit.ofSeconds(60));
    AtomicBoolean fired = new AtomicBoolean();
    TimerHandle handle = Guards.arm(limit, () -> fired.set(true));
    assertThat(handle.isArmed()).isFalse();
    handle.cancel(); // tolerated
    assertThat(Workspace.poll(Duration.ofMillis(50), fired::get)).isFalse();
  }

  @Test
  @DisplayName("B12: an enabled limit fires, a disarmed one does not")
  void enabledFiresDisarmedDoesNot() throws Exception {
    CountDownLatch fired = new CountDownLatch(1);
    AtomicBoolean disarmedFired = new AtomicBoolean();
    Guards.arm(Limit.ofMillis(5), fired::countDown);
    TimerHandle disarmed = Guards.arm(Limit.ofMillis(5), () -> disarmedFired.set(true));
    assertThat(disarmed.cancel()).isTrue();
    assertThat(fired.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(Workspace.poll(Duration.ofMillis(30), disarmedFired::get)).isFalse();
  }

  @Test
  @DisplayName("B13: a 30-day limit does not overflow into an early fire")
  void thirtyDaysDoNotOverflow() {
    System.setProperty(IDLE, "2592000000");
    Limit limit = BrokerLimits.IDLE.resolve();
    assertThat(limit.toNanos()).isEqualTo(Duration.ofDays(30).toNanos());
    AtomicBoolean fired = new AtomicBoolean();
    TimerHandle handle = Guards.arm(limit, () -> fired.set(true));
    try {
      assertThat(Workspace.poll(Duration.ofMillis(50), fired::get)).isFalse();
      assertThat(handle.isArmed()).isTrue();
    } finally {
      handle.cancel();
    }
  }
}
