package dev.lifecycle.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.probe.EndpointProbe;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.ArtifactKind;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.record.SessionRecord;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.ManualScheduler;
import dev.lifecycle.time.Limit;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The broker's logic in this JVM, on real sockets, with virtual time for its timers. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class BrokerRuntimeTest {
  private static final Duration IDLE = Duration.ofSeconds(10);
  private static final String NAME = BrokerFixture.NAME;

  @TempDir Path temp;
  private RecordStore store;
  private final ManualScheduler time = new ManualScheduler();
  private final List<BrokerRuntime> runtimes = new ArrayList<>();
  private final List<ProcessTree> trees = new ArrayList<>();
  private final List<ShutdownPass.Step> steps = Collections.synchronizedList(new ArrayList<>());
  private final CompletableFuture<String> held = new CompletableFuture<>();
  private final CountDownLatch holding = new CountDownLatch(1);

  @BeforeEach
  void setUp() throws IOException {
    store = RecordStore.open(temp.resolve("records"));
  }

  @AfterEach
  void stopEverything() {
    runtimes.forEach(BrokerRuntime::close);
    trees.forEach(tree -> tree.terminate(Duration.ZERO));
  }

  private BrokerRuntime.Builder builder() {
    return BrokerFixture.inThisJvm(store, time, IDLE, steps)
        .handler(
            request -> {
              if (request.line().equals("hold")) {
                holding.countDown();
                return held;
              }
              return CompletableFuture.completedFuture("echo " + request.line());
            });
  }

  private BrokerRuntime started(BrokerRuntime.Builder builder) throws IOException {
    BrokerRuntime runtime = builder.build();
    runtimes.add(runtime);
    runtime.start();
    return runtime;
  }

  private static BrokerConnection connect(SessionRecord record) throws IOException {
    return BrokerConnection.open(record.endpoint()); // consumes the greeting
  }

  private static void send(BrokerConnection channel, String line) throws IOException {
    channel.send(line, Duration.ofSeconds(10));
  }

  private static String reply(BrokerConnection channel) throws IOException {
    return channel.receive(Duration.ofSeconds(10));
  }

  private static void until(String what, BooleanSupplier done) {
    Await.until(Duration.ofSeconds(5), what, done);
  }

  private static ShutdownReport stopped(BrokerRuntime runtime) throws Exception {
    return runtime.onStopped().get(5, TimeUnit.SECONDS);
  }

  @Test
  void servesLinesAndPublishesOnlyOnceListening() throws Exception {
    BrokerRuntime runtime = started(builder());
    SessionRecord record = runtime.record().orElseThrow();
    assertThat(store.read(NAME).record()).contains(record);
    assertThat(record.artifacts()).containsKeys(ArtifactKind.SOCKET, ArtifactKind.DIRECTORY);
    try (BrokerConnection channel = connect(record)) {
      send(channel, "hello");
      assertThat(reply(channel)).isEqualTo("echo hello");
    }
    assertThat(runtime.state()).isEqualTo(BrokerState.SERVING);
  }

  @Test
  void anIdleTriggerThatLostTheRaceToAClientDoesNotEndTheBroker() throws Exception {
    BrokerRuntime runtime = started(builder());
    // The idle timer decided with no lease open; a client was greeted before the pass started.
    try (BrokerConnection client = connect(runtime.record().orElseThrow())) {
      until("connection lease taken", () -> runtime.activeLeases() == 1);

      runtime.shutdown(ShutdownReason.IDLE);

      assertThat(runtime.state()).isEqualTo(BrokerState.SERVING);
      send(client, "still here");
      assertThat(reply(client)).isEqualTo("echo still here");
    }
    until("lease released", () -> runtime.activeLeases() == 0);
    time.advance(IDLE); // re-armed by the last lease: the broker idles out after all
    assertThat(runtime.onStopped().get(10, TimeUnit.SECONDS).reason())
        .isEqualTo(ShutdownReason.IDLE);
  }

  @Test
  void aBrokerNobodyConnectsToIdlesOutOneWindowAfterStart() throws Exception {
    BrokerRuntime runtime = started(builder());
    time.advance(IDLE.minusMillis(1));
    assertThat(runtime.state()).isEqualTo(BrokerState.SERVING);
    time.advance(Duration.ofMillis(1));
    ShutdownReport report = stopped(runtime);
    assertThat(report.reason()).isEqualTo(ShutdownReason.IDLE);
    assertThat(report.recordCleared()).isTrue();
    assertThat(store.recordFile(NAME)).doesNotExist();
  }

  @Test
  void aRequestInFlightHoldsTheBrokerAfterItsClientLeftThenOneIdleWindow() throws Exception {
    BrokerRuntime runtime = started(builder());
    try (BrokerConnection channel = connect(runtime.record().orElseThrow())) {
      send(channel, "hold");
      assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
    }
    until("connection lease released", () -> runtime.activeLeases() == 1);
    time.advance(Duration.ofHours(1));
    assertThat(runtime.state()).as("request lease open").isEqualTo(BrokerState.SERVING);

    held.complete("late reply"); // nobody to send it to; the lease closes anyway
    until("request lease released", () -> runtime.activeLeases() == 0);
    time.advance(IDLE.minusMillis(1));
    assertThat(runtime.state()).isEqualTo(BrokerState.SERVING);
    time.advance(Duration.ofMillis(1));
    assertThat(stopped(runtime).reason()).isEqualTo(ShutdownReason.IDLE);
  }

  @Test
  void racingTriggersRunOnePassAndAllSeeItsReport() throws Exception {
    BrokerRuntime runtime = started(builder());
    ShutdownReason[] reasons = {
      ShutdownReason.REQUEST, ShutdownReason.JVM_EXIT, ShutdownReason.IDLE, ShutdownReason.REQUEST
    };
    CyclicBarrier start = new CyclicBarrier(reasons.length * 2 + 1);
    List<CompletableFuture<CompletableFuture<ShutdownReport>>> calls = new ArrayList<>();
    for (int i = 0; i < reasons.length * 2; i++) {
      ShutdownReason reason = reasons[i % reasons.length];
      calls.add(
          CompletableFuture.supplyAsync(
              () -> {
                await(start);
                return runtime.shutdown(reason);
              },
              runnable -> new Thread(runnable).start()));
    }
    await(start);
    time.advance(IDLE); // the idle timer fires into the race too (or finds the tracker closed)

    List<ShutdownReport> reports = new ArrayList<>();
    for (var call : calls) {
      reports.add(call.get(5, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS));
    }
    assertThat(reports).allMatch(report -> report == reports.get(0));
    assertThat(steps).containsExactly(ShutdownPass.Step.values());
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void theListenerClosesBeforeTheRecordIsClearedAndTheBackendIsTerminatedLast() throws Exception {
    ProcessPlatform platform = ProcessPlatform.get();
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    BrokerRuntime[] self = new BrokerRuntime[1];
    ProcessTree[] backend = new ProcessTree[1];
    BrokerRuntime runtime =
        started(
            builder()
                .startup(
                    rt -> {
                      backend[0] = rt.spawnBackend(new ProcessBuilder("sleep", "300"));
                      trees.add(backend[0]);
                    })
                .observer(
                    step -> {
                      Endpoint endpoint = self[0].record().orElseThrow().endpoint();
                      boolean reachable = EndpointProbe.probe(endpoint).isReachable();
                      boolean recorded = Files.exists(store.recordFile(NAME));
                      boolean backendAlive = backend[0].view().all().size() > 0;
                      seen.add(
                          step
                              + " reachable="
                              + reachable
                              + " record="
                              + recorded
                              + " backend="
                              + backendAlive);
                    }));
    self[0] = runtime;
    assertThat(platform).isNotNull();

    runtime.shutdown();
    ShutdownReport report = stopped(runtime);

    assertThat(seen)
        .containsExactly(
            "LISTENER_CLOSED reachable=false record=true backend=true",
            "CONNECTIONS_CLOSED reachable=false record=true backend=true",
            "RECORD_CLEARED reachable=false record=false backend=true",
            "ARTIFACTS_REMOVED reachable=false record=false backend=true",
            "BACKENDS_TERMINATED reachable=false record=false backend=false");
    assertThat(report.backends()).hasSize(1).allMatch(r -> r.noSurvivorSeen());
  }

  @Test
  void aSuccessorsRecordSurvivesThePredecessorsShutdown() throws Exception {
    BrokerRuntime predecessor = started(builder());
    SessionRecord mine = predecessor.record().orElseThrow();
    SessionRecord successor =
        SessionRecord.newGeneration(
            ProcessPlatform.get(), Endpoint.unix(temp.resolve("successor.sock")), Map.of());
    store.publish(NAME, successor);

    ShutdownReport report = predecessor.shutdown().get(5, TimeUnit.SECONDS);

    assertThat(report.recordCleared()).isFalse();
    assertThat(store.read(NAME).record().map(SessionRecord::token)).contains(successor.token());
    assertThat(mine.artifacts().get(ArtifactKind.DIRECTORY)).doesNotExist();
  }

  @Test
  void aStartupOverrunRunsThePassAndStartFails() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    BrokerRuntime runtime =
        builder().startupTimeout(Limit.ofSeconds(5)).startup(rt -> release.await()).build();
    runtimes.add(runtime);
    CompletableFuture<Throwable> starting =
        CompletableFuture.supplyAsync(() -> catchThrowable(runtime::start));
    until("starting", () -> runtime.state() == BrokerState.STARTING);
    time.advance(Duration.ofSeconds(5));
    assertThat(stopped(runtime).reason()).isEqualTo(ShutdownReason.STARTUP_OVERRUN);

    release.countDown(); // the startup returns late: start() must fail and leave nothing
    assertThat(starting.get(5, TimeUnit.SECONDS))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("STARTUP_OVERRUN");
    assertThat(store.recordFile(NAME)).doesNotExist();
    try (var files = Files.list(store.directory())) {
      assertThat(files.filter(f -> f.getFileName().toString().contains(".gen-"))).isEmpty();
    }
  }

  @Test
  void aFailedStartupTerminatesWhatItStarted() throws Exception {
    ProcessTree[] backend = new ProcessTree[1];
    BrokerRuntime runtime =
        builder()
            .startup(
                rt -> {
                  backend[0] = rt.spawnBackend(new ProcessBuilder("sleep", "300"));
                  trees.add(backend[0]);
                  throw new IllegalStateException("backend handshake failed");
                })
            .build();
    runtimes.add(runtime);

    assertThatThrownBy(runtime::start).hasMessageContaining("backend handshake failed");
    // Verified gone by the pass; the JDK's reaper thread may take a moment to notice.
    assertThat(backend[0].leader().waitFor(1, TimeUnit.SECONDS)).isTrue();
    assertThat(runtime.awaitStopped().reason()).isEqualTo(ShutdownReason.STARTUP_FAILED);
    assertThat(store.recordFile(NAME)).doesNotExist();
  }

  @Test
  void aTreeAdoptedDuringShutdownIsTerminatedAtOnce() throws Exception {
    BrokerRuntime runtime = started(builder());
    runtime.shutdown().get(5, TimeUnit.SECONDS);
    ProcessTree late =
        ProcessTree.spawn(
            ProcessPlatform.get(), new ProcessBuilder("sleep", "300"), TreeOptions.defaults());
    trees.add(late);
    runtime.adopt(late);
    assertThat(late.leader().waitFor(1, TimeUnit.SECONDS)).isTrue();
  }
}
