package dev.lifecycle.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.testing.ManualScheduler;
import dev.lifecycle.time.IdleTracker;
import dev.lifecycle.time.Limit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Requests in flight hold the idle timer off; ids match across boxed number types. */
class InFlightTest {
  @Test
  void theIdleTimerArmsOnlyWhenNothingIsInFlightInEitherDirection() {
    ManualScheduler scheduler = new ManualScheduler();
    AtomicInteger idled = new AtomicInteger();
    IdleTracker idle =
        IdleTracker.builder()
            .timeout(Limit.ofSeconds(1))
            .scheduler(scheduler)
            .onIdle(idled::incrementAndGet)
            .build();
    InFlight inFlight = new InFlight(idle);
    inFlight.sent("a-1", "tools/call");
    inFlight.received(7); // the server asks us something (sampling, roots)
    scheduler.advance(Duration.ofSeconds(1));
    assertThat(idled).hasValue(0);
    assertThat(inFlight.answered(7L)).isFalse(); // an incoming id is not an outgoing one
    assertThat(inFlight.answered("a-1")).isTrue();
    assertThat(inFlight.answered("a-1")).isFalse(); // twice: no double release
    assertThat(idle.isIdleTimerArmed()).isFalse(); // our reply to 7 is still owed
    inFlight.replied(7L); // Long vs Integer: the same JSON-RPC id
    assertThat(idle.isIdleTimerArmed()).isTrue();
    scheduler.advance(Duration.ofSeconds(1));
    assertThat(idled).hasValue(1);
  }

  @Test
  void drainingReturnsEveryPendingRequestOnceAndReleasesItsLease() {
    ManualScheduler scheduler = new ManualScheduler();
    IdleTracker idle =
        IdleTracker.builder()
            .timeout(Limit.ofSeconds(1))
            .scheduler(scheduler)
            .onIdle(() -> {})
            .build();
    InFlight inFlight = new InFlight(idle);
    inFlight.sent("x-1", "initialize");
    inFlight.sent(2, "tools/list");
    assertThat(inFlight.drainOutgoing())
        .extracting(InFlight.Request::method)
        .containsExactlyInAnyOrder("initialize", "tools/list");
    assertThat(inFlight.drainOutgoing()).isEmpty();
    assertThat(inFlight.size()).isZero();
    assertThat(idle.activeLeases()).isZero();
  }

  @Test
  void theInitializeAnswerIsKnownByItsIdAcrossBoxedNumberTypes() {
    IdleTracker idle =
        IdleTracker.builder()
            .timeout(Limit.ofSeconds(1))
            .scheduler(new ManualScheduler())
            .onIdle(() -> {})
            .build();
    InFlight inFlight = new InFlight(idle);
    assertThat(inFlight.isInitialize(1)).isFalse(); // nothing sent yet
    inFlight.sent(1, "initialize");
    inFlight.sent(2, "tools/list");
    assertThat(inFlight.answered(1L)).isTrue();
    assertThat(inFlight.isInitialize(1L)).isTrue(); // still known once answered
    assertThat(inFlight.isInitialize("1")).isFalse(); // a string id is another id
    assertThat(inFlight.isInitialize(2)).isFalse();
  }
}
