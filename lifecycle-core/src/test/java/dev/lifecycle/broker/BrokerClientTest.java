package dev.lifecycle.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lifecycle.internal.Setting;
import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.record.SessionRecord;
import dev.lifecycle.time.Limit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class BrokerClientTest {
  @TempDir Path temp;

  @Test
  void anUnresponsiveLiveOwnerIsLeftAloneAndNamed() throws Exception {
    RecordStore store = RecordStore.open(temp.resolve("records"));
    ProcessPlatform platform = ProcessPlatform.get();
    // Owned by this (live) JVM, at an endpoint nobody listens on.
    SessionRecord record =
        SessionRecord.newGeneration(platform, Endpoint.unix(temp.resolve("none.sock")), Map.of());
    store.publish("b", record);
    AtomicInteger spawned = new AtomicInteger();
    BrokerClient client =
        BrokerClient.builder()
            .store(store)
            .name("b")
            .command(
                () -> {
                  spawned.incrementAndGet();
                  return new ProcessBuilder("false");
                })
            .unresponsiveWait(Limit.ofMillis(300))
            .build();

    long started = System.nanoTime();
    Throwable thrown = catchThrowable(client::ensure);

    assertThat(thrown)
        .isInstanceOf(BrokerException.class)
        .hasMessageContaining("pid " + platform.self().pid())
        .hasMessageContaining("left alone");
    assertThat(((BrokerException) thrown).pid()).hasValue(platform.self().pid());
    assertThat(System.nanoTime() - started).isBetween(300_000_000L, 5_000_000_000L);
    assertThat(spawned).hasValue(0);
    assertThat(store.read("b").record().map(SessionRecord::token)).contains(record.token());
  }

  @Test
  void limitsComeFromCodeThenSystemPropertyThenDefault() {
    String property = BrokerLimits.IDLE.systemProperty();
    System.setProperty(property, "90s");
    try {
      assertThat(BrokerLimits.IDLE.resolve()).isEqualTo(Limit.ofSeconds(90));
      assertThat(BrokerLimits.IDLE.or(Limit.ofSeconds(5))).isEqualTo(Limit.ofSeconds(5));
      System.setProperty(property, "soon");
      assertThat(BrokerLimits.IDLE.resolve()).isEqualTo(BrokerLimits.IDLE.defaultLimit());
      System.setProperty(property, "0");
      assertThat(BrokerLimits.IDLE.resolve().isEnabled()).isFalse();
    } finally {
      System.clearProperty(property);
    }
  }

  @Test
  void theBackendGraceIsADurationFromCodeThenPropertyThenVariableThenDefault() {
    Setting<Duration> grace = BrokerSettings.BACKEND_GRACE;
    Map<String, String> properties = new HashMap<>();
    Map<String, String> environment = new HashMap<>();
    assertThat(grace.resolve(Optional.empty(), properties::get, environment::get))
        .isEqualTo(BrokerRuntime.DEFAULT_BACKEND_GRACE);
    environment.put(BrokerRuntime.BACKEND_GRACE_ENV, "2s");
    assertThat(grace.resolve(Optional.empty(), properties::get, environment::get))
        .isEqualTo(Duration.ofSeconds(2));
    properties.put(BrokerRuntime.BACKEND_GRACE_PROPERTY, "0");
    assertThat(grace.resolve(Optional.empty(), properties::get, environment::get)).isZero();
    assertThat(
            grace.resolve(Optional.of(Duration.ofMillis(300)), properties::get, environment::get))
        .isEqualTo(Duration.ofMillis(300));
    properties.put(BrokerRuntime.BACKEND_GRACE_PROPERTY, "soon");
    assertThat(grace.resolve(Optional.empty(), properties::get, environment::get))
        .isEqualTo(Duration.ofSeconds(2));
    assertThatThrownBy(() -> grace.parse("soon"))
        .hasMessageContaining(BrokerRuntime.BACKEND_GRACE_PROPERTY)
        .hasMessageContaining("\"soon\"");
  }
}
