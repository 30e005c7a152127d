package dev.lifecycle.broker;

import dev.lifecycle.record.RecordStore;
import dev.lifecycle.testing.ManualScheduler;
import dev.lifecycle.time.Limit;
import java.time.Duration;
import java.util.List;

/** The broker the core tests run inside their own JVM. */
final class BrokerFixture {
  static final String NAME = "broker";

  private BrokerFixture() {}

  /**
   * A broker named {@link #NAME} on manual time that leaves this JVM alone: no shutdown hook, no
   * exit on a startup overrun, a 30 s startup bound that only {@code time} can reach, a 200 ms
   * grace for backend trees, and every step of its pass recorded in {@code steps}.
   */
  static BrokerRuntime.Builder inThisJvm(
      RecordStore store, ManualScheduler time, Duration idle, List<ShutdownPass.Step> steps) {
    return BrokerRuntime.builder()
        .store(store)
        .name(NAME)
        .scheduler(time)
        .idleTimeout(Limit.of(idle))
        .startupTimeout(Limit.ofSeconds(30))
        .backendGrace(Duration.ofMillis(200))
        .shutdownHook(false)
        .exitOnStartupOverrun(false)
        .observer(steps::add);
  }
}
