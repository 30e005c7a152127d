package dev.lifecycle.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lifecycle.broker.PhaseHook.Phase;
import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.Background;
import dev.lifecycle.testing.ManualScheduler;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeMember;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A backend whose leader is SIGKILLed while the broker is held at each boundary of its life: the
 * broker stops once, answers nothing from then on, and leaves neither the backend's children nor
 * its record behind.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BackendExitPhasesTest {
  private static final String NAME = BrokerFixture.NAME;
  private static final Duration BOUND = Duration.ofSeconds(10);

  @TempDir Path temp;
  private RecordStore store;
  private final ManualScheduler time = new ManualScheduler();
  private final List<ShutdownPass.Step> steps = Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch held = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicReference<ProcessTree> backend = new AtomicReference<>();
  private final List<BrokerConnection> clients = new ArrayList<>();
  private BrokerRuntime runtime;

  @BeforeEach
  void setUp() throws IOException {
    store = RecordStore.open(temp.resolve("records"));
  }

  @AfterEach
  void stopEverything() {
    release.countDown();
    clients.forEach(BrokerConnection::close);
    if (runtime != null) {
      runtime.close();
    }
    ProcessTree tree = backend.get();
    if (tree != null) {
      tree.terminate(Duration.ZERO);
    }
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void aBackendKilledAtAPhaseBoundaryEndsTheBrokerOnceWithItsWholeTree(Phase phase)
      throws Exception {
    runtime = broker(phase);
    CompletableFuture<Object> starting = startInBackground();
    BrokerConnection early = null;
    Endpoint endpoint = null;
    if (phase == Phase.STOPPING) {
      starting.get(BOUND.toSeconds(), TimeUnit.SECONDS);
      endpoint = runtime.record().orElseThrow().endpoint();
      early = connect(endpoint);
      runtime.shutdown(); // the pass holds at the hook on its own thread
    }
    assertThat(held.await(BOUND.toSeconds(), TimeUnit.SECONDS)).as("held at " + phase).isTrue();
    if (phase == Phase.PUBLISHING || phase == Phase.SERVING) {
      endpoint = listening();
      early = connect(endpoint);
      assertThat(early.call("before", BOUND)).isEqualTo("ok before");
    }
    ProcessTree tree = backend.get();
    List<ProcessIdentity> members =
        Await.until(BOUND, "sh and both sleeps", () -> identities(tree), ids -> ids.size() == 3);

    ProcessPlatform.get().signal(tree.leaderIdentity(), Signal.KILL);
    assertThat(tree.leader().waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
    if (phase != Phase.STOPPING) {
      Await.until(
          BOUND,
          "the broker acts on the exit while held at " + phase,
          () -> runtime.state().compareTo(BrokerState.SERVING) > 0);
    }

    if (early != null) {
      BrokerConnection client = early;
      assertThat(catchThrowable(() -> client.call("after", BOUND)))
          .as("no answer after the exit")
          .isInstanceOf(IOException.class);
    }
    if (endpoint != null) {
      Endpoint gone = endpoint;
      assertThat(catchThrowable(() -> connect(gone))).isInstanceOf(IOException.class);
    }
    release.countDown();

    Object started = starting.get(BOUND.toSeconds(), TimeUnit.SECONDS);
    ShutdownReport report = runtime.onStopped().get(BOUND.toSeconds(), TimeUnit.SECONDS);
    if (phase == Phase.STARTING || phase == Phase.PUBLISHING) {
      assertThat(started).isInstanceOf(IOException.class);
    }
    assertThat(report.reason())
        .isEqualTo(
            phase == Phase.STOPPING ? ShutdownReason.REQUEST : ShutdownReason.BACKEND_EXITED);
    assertThat(steps).as("one pass").containsExactly(ShutdownPass.Step.values());
    assertThat(report.backends()).hasSize(1);
    Await.allGone(BOUND, members);
    assertThat(store.recordFile(NAME)).doesNotExist();
    if (phase == Phase.SERVING || phase == Phase.STOPPING) {
      assertThat(report.recordCleared()).isTrue();
    }
  }

  @Test
  void aPolicyOfItsOwnHearsAnExitWhileTheBrokerPublishes() throws Exception {
    List<ProcessTree> heard = Collections.synchronizedList(new ArrayList<>());
    runtime =
        builder(Phase.PUBLISHING)
            .onBackendExit(
                (rt, tree) -> {
                  heard.add(tree);
                  rt.shutdown(ShutdownReason.BACKEND_EXITED);
                })
            .build();
    CompletableFuture<Object> starting = startInBackground();
    assertThat(held.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
    ProcessTree tree = backend.get();

    ProcessPlatform.get().signal(tree.leaderIdentity(), Signal.KILL);
    Await.until(BOUND, "the policy heard the exit", () -> heard.size() == 1);
    release.countDown();

    assertThat(starting.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(IOException.class);
    assertThat(runtime.onStopped().get(BOUND.toSeconds(), TimeUnit.SECONDS).reason())
        .isEqualTo(ShutdownReason.BACKEND_EXITED);
    assertThat(heard).containsExactly(tree);
    assertThat(store.recordFile(NAME)).doesNotExist();
  }

  private BrokerRuntime broker(Phase holdAt) {
    return builder(holdAt).build();
  }

  private BrokerRuntime.Builder builder(Phase holdAt) {
    return BrokerFixture.inThisJvm(store, time, Duration.ofHours(1), steps)
        .startup(
            rt ->
                backend.set(
                    rt.spawnBackend(
                        new ProcessBuilder("sh", "-c", "sleep 300 & sleep 300 & wait"))))
        .phaseHook(
            phase -> {
              if (phase == holdAt) {
                held.countDown();
                awaitRelease();
              }
            })
        .handler(request -> CompletableFuture.completedFuture("ok " + request.line()));
  }

  /** Starts the broker on its own thread; the future holds what start returned or threw. */
  private CompletableFuture<Object> startInBackground() {
    return Background.call("test-broker-start", runtime::start)
        .handle((record, failure) -> failure == null ? record : failure);
  }

  private void awaitRelease() {
    try {
      release.await(BOUND.toSeconds() * 3, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private BrokerConnection connect(Endpoint endpoint) throws IOException {
    BrokerConnection connection = BrokerConnection.open(endpoint);
    clients.add(connection);
    return connection;
  }

  /** The socket of this generation, published or not yet. */
  private Endpoint listening() throws IOException {
    try (Stream<Path> files =
        Files.find(store.directory(), 2, (path, attributes) -> isSocket(path))) {
      return Endpoint.unix(files.findFirst().orElseThrow());
    }
  }

  private static boolean isSocket(Path path) {
    return path.getFileName().toString().equals(Listener.SOCKET_FILE);
  }

  private static List<ProcessIdentity> identities(ProcessTree tree) {
    return tree.view().all().stream().map(TreeMember::identity).toList();
  }
}
