package dev.lifecycle.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.probe.EndpointProbe;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.record.ArtifactKind;
import dev.lifecycle.record.ReadResult;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.record.SessionRecord;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.time.Limit;
import dev.lifecycle.tree.ProcessTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Brokers as real JVMs ({@link TestBrokerMain}) on real Unix domain sockets, with a backend tree
 * that ignores SIGTERM. Every process a test starts carries its store directory in its environment
 * and is killed by identity afterwards.
 */
@NoProcessLeaks
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrokerProcessTest {
  private static final String NAME = "broker";

  @TempDir Path temp;
  private Path storeDir;
  private RecordStore store;
  private Reaper reaper;
  private final ProcessPlatform platform = ProcessPlatform.get();

  @BeforeEach
  void setUp() throws IOException {
    storeDir = temp.resolve("records");
    store = RecordStore.open(storeDir);
    reaper = new Reaper(store.directory());
  }

  @AfterEach
  void killEverythingStarted() {
    reaper.killAll();
  }

  private ProcessTree startBroker(Path log, String... jvmOptions) throws IOException {
    ProcessBuilder builder =
        Brokers.command(store.directory(), NAME, List.of(jvmOptions))
            .redirectOutput(Redirect.DISCARD)
            .redirectError(log.toFile());
    return reaper.track(ProcessTree.spawn(builder));
  }

  private BrokerClient client(String... jvmOptions) {
    return BrokerClient.builder()
        .store(store)
        .name(NAME)
        .command(() -> Brokers.command(store.directory(), NAME, List.of(jvmOptions)))
        .readyTimeout(Limit.ofSeconds(20))
        .build();
  }

  private void awaitRecordFile() {
    Reaper.until(
        Duration.ofSeconds(20), "record published", () -> Files.exists(store.recordFile(NAME)));
  }

  private SessionRecord validRecord() throws IOException {
    ReadResult result = store.read(NAME);
    assertThat(result.status()).isEqualTo(ReadResult.Status.VALID);
    return result.record().orElseThrow();
  }

  private static List<ProcessIdentity> identities(String pids) {
    return Arrays.stream(pids.trim().split(" "))
        .map(Long::parseLong)
        .map(pid -> ProcFs.identity(pid).orElseThrow())
        .toList();
  }

  /** The backend's processes once its shell has forked both sleeps (it may still be forking). */
  private List<ProcessIdentity> backendsOf(Endpoint endpoint) {
    return Await.until(
        Duration.ofSeconds(10),
        "the backend's sh and its two sleeps",
        () -> {
          try (BrokerConnection channel = BrokerConnection.open(endpoint)) {
            return identities(Brokers.request(channel, "backends"));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        backends -> backends.size() >= 3); // sh, sleep, sleep ignoring TERM
  }

  @Test
  void twentyConcurrentColdStartsAcrossProcessesYieldOneBroker() throws Exception {
    Path gate = temp.resolve("gate");
    List<ProcessTree> clients = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      ProcessBuilder builder =
          new ProcessBuilder(
                  Brokers.java(),
                  "-XX:TieredStopAtLevel=1",
                  "-XX:+UseSerialGC",
                  "-cp",
                  System.getProperty("java.class.path"),
                  TestClientMain.class.getName(),
                  store.directory().toString(),
                  NAME,
                  gate.toString(),
                  "-Dlifecycle.broker.idleTimeout=30s")
              .redirectError(Redirect.INHERIT);
      builder.environment().put(BrokerClient.DIRECTORY_VARIABLE, store.directory().toString());
      clients.add(reaper.track(ProcessTree.spawn(builder)));
    }
    Files.createFile(gate); // all twenty race from a cold start

    List<String> served = new ArrayList<>();
    for (ProcessTree client : clients) {
      assertThat(client.leader().waitFor(45, TimeUnit.SECONDS)).isTrue();
      assertThat(client.leader().exitValue()).isZero();
      served.add(new String(client.leader().getInputStream().readAllBytes()).trim());
    }
    assertThat(served).allMatch(line -> line.startsWith("SERVED "));
    List<String> pids = served.stream().map(line -> line.split(" ")[1]).distinct().toList();
    assertThat(pids).as("brokers that served").hasSize(1);
    assertThat(served.stream().filter(line -> line.endsWith(" true"))).as("starters").hasSize(1);
    assertThat(reaper.brokers()).as("live brokers").containsExactly(Long.parseLong(pids.get(0)));
  }

  @Test
  void aSigkilledBrokerIsReclaimedByTheNextClient() throws Exception {
    BrokerClient client = client("-Dlifecycle.broker.idleTimeout=30s");
    BrokerSession first = client.ensure();
    assertThat(first.started()).isTrue();
    Path firstGeneration = first.record().artifacts().get(ArtifactKind.DIRECTORY);
    platform.signal(first.record().owner(), Signal.KILL);
    // Wait on the platform's own verdict: for a moment after SIGKILL a JVM's main thread is a
    // zombie in /proc while its other threads still exit and its listener still accepts.
    Reaper.until(
        Duration.ofSeconds(5),
        "broker killed",
        () -> platform.probe(first.record().owner()) == Liveness.GONE);

    BrokerSession second = client.ensure();

    assertThat(second.started()).isTrue();
    assertThat(second.pid()).isNotEqualTo(first.pid());
    assertThat(firstGeneration).as("the dead broker's files, reclaimed").doesNotExist();
    try (BrokerConnection channel = client.connection()) {
      assertThat(Brokers.request(channel, "pid")).isEqualTo(Long.toString(second.pid()));
    }
    assertThat(reaper.brokers()).containsExactly(second.pid());
  }

  @Test
  void aBrokerNobodyConnectsToIdlesOut() throws Exception {
    ProcessTree broker =
        startBroker(
            temp.resolve("broker.log"),
            "-Dlifecycle.broker.idleTimeout=700ms",
            "-Dlifecycle.broker.backendGrace=300ms");
    awaitRecordFile(); // a file check, not a probe: a probe is a connection, hence a lease

    assertThat(broker.leader().waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(store.recordFile(NAME)).doesNotExist();
    try (Stream<Path> files = Files.list(store.directory())) {
      assertThat(files.filter(f -> f.getFileName().toString().contains(".gen-"))).isEmpty();
    }
  }

  @Test
  void idleShutdownComesOneWindowAfterTheLastLeaseEvenIfTheClientLeftMidRequest() throws Exception {
    ProcessTree broker =
        startBroker(
            temp.resolve("broker.log"),
            "-Dlifecycle.broker.idleTimeout=600ms",
            "-Dlifecycle.broker.backendGrace=300ms");
    awaitRecordFile();
    SessionRecord record = validRecord();
    List<ProcessIdentity> backends = backendsOf(record.endpoint());

    try (BrokerConnection channel = BrokerConnection.open(record.endpoint())) {
      // An open connection is a lease: well past one idle window, still serving.
      assertThat(broker.leader().waitFor(1000, TimeUnit.MILLISECONDS)).isFalse();
      Brokers.send(channel, "slow 1000");
    } // the client leaves while its request is in flight
    long left = System.nanoTime();

    // The request's lease holds until its response (1 s), then one idle window (0.6 s).
    assertThat(broker.leader().waitFor(1300, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(broker.leader().waitFor(10, TimeUnit.SECONDS)).isTrue();
    long tookMillis = (System.nanoTime() - left) / 1_000_000;
    System.out.println("broker exited " + tookMillis + " ms after its client left mid-request");
    assertThat(tookMillis).isBetween(1500L, 5000L); // + 0.3 s backend grace and the exit
    assertThat(backends).allMatch(Reaper::isGone);
  }

  enum Trigger {
    IDLE,
    REQUEST,
    SIGTERM,
    SIGINT
  }

  @ParameterizedTest
  @EnumSource(Trigger.class)
  void aBackendThatIgnoresSigtermIsKilledBeforeTheBrokerExits(Trigger trigger) throws Exception {
    // The idle timeout must outlast the record read below also on a loaded machine: a broker that
    // idles out first is found shutting down (UNRESPONSIVE).
    ProcessTree broker =
        startBroker(
            temp.resolve("broker.log"),
            "-Dlifecycle.broker.idleTimeout=" + (trigger == Trigger.IDLE ? "2s" : "30s"),
            "-Dlifecycle.broker.backendGrace=300ms");
    awaitRecordFile();
    SessionRecord record = validRecord();
    List<ProcessIdentity> backends = backendsOf(record.endpoint());

    switch (trigger) {
      case REQUEST -> {
        try (BrokerConnection channel = BrokerConnection.open(record.endpoint())) {
          Brokers.send(channel, "shutdown");
        }
      }
      case SIGTERM -> platform.signal(broker.leaderIdentity(), Signal.TERM);
      case SIGINT -> platform.signal(broker.leaderIdentity(), Signal.INT);
      case IDLE -> {} // backendsOf closed the last connection
    }

    assertThat(broker.leader().waitFor(15, TimeUnit.SECONDS)).isTrue();
    // No polling: the broker may only exit once its backends are SIGKILLed and verified gone.
    assertThat(backends).as("backends when the broker exited").allMatch(Reaper::isGone);
    assertThat(store.recordFile(NAME)).doesNotExist();
    assertThat(record.artifacts().get(ArtifactKind.DIRECTORY)).doesNotExist();
    String log = Files.readString(temp.resolve("broker.log"));
    assertThat(log).contains("backends=[TerminationReport[ended by KILL");
  }

  @Test
  void aClientConnectingDuringShutdownIsRefusedAndStartsANewBroker() throws Exception {
    BrokerClient client =
        // The old broker must still be ending its backend when the successor answers: its grace
        // outlasts a cold start of the successor on a loaded machine.
        client("-Dlifecycle.broker.idleTimeout=60s", "-Dlifecycle.broker.backendGrace=15s");
    BrokerSession dying = client.ensure();
    ProcessHandle dyingHandle = ProcessHandle.of(dying.pid()).orElseThrow();
    try (BrokerConnection channel = client.connection()) {
      Brokers.send(channel, "shutdown");
    }
    // Its listener closes first; its backend (ignoring SIGTERM) keeps it alive for 15 s more.
    Reaper.until(
        Duration.ofSeconds(5),
        "listener closed",
        () -> !EndpointProbe.probe(dying.endpoint()).isReachable());

    try (BrokerConnection channel = client.connection()) {
      String servedBy = Brokers.request(channel, "pid");
      assertThat(servedBy).isNotEqualTo(Long.toString(dying.pid()));
      assertThat(dyingHandle.isAlive()).as("old broker still terminating its backend").isTrue();
    }
    dyingHandle.onExit().get(45, TimeUnit.SECONDS);
    assertThat(validRecord().owner().pid())
        .as("the successor's record survives")
        .isNotEqualTo(dying.pid());
  }

  @Test
  void aSuccessorsRecordSurvivesItsPredecessorsShutdownUnderTheRecordLock() throws Exception {
    ProcessTree predecessor =
        startBroker(temp.resolve("a.log"), "-Dlifecycle.broker.backendGrace=300ms");
    awaitRecordFile();
    SessionRecord old = validRecord();
    assertThat(old.owner().pid()).isEqualTo(predecessor.leader().pid());
    ProcessTree successor;
    Path lockFile = store.directory().resolve(NAME + ".lock");
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
        FileLock held = channel.lock()) {
      try (BrokerConnection connection = BrokerConnection.open(old.endpoint())) {
        Brokers.send(connection, "shutdown");
      }
      Reaper.until(
          Duration.ofSeconds(5),
          "predecessor's listener closed",
          () -> !EndpointProbe.probe(old.endpoint()).isReachable());
      successor = startBroker(temp.resolve("b.log"), "-Dlifecycle.broker.backendGrace=300ms");
      // The successor listens, then waits for the lock to publish; the predecessor waits to clear.
      Reaper.until(Duration.ofSeconds(20), "successor listening", () -> successorListening(old));
      assertThat(predecessor.leader().isAlive()).as("predecessor waits for the lock").isTrue();
      ReadResult meanwhile = store.read(NAME); // unresponsive: its listener is closed
      assertThat(meanwhile.record().map(SessionRecord::token)).contains(old.token());
    }

    assertThat(predecessor.leader().waitFor(15, TimeUnit.SECONDS)).isTrue();
    Reaper.until(
        Duration.ofSeconds(10),
        "successor published",
        () -> readOwner().filter(pid -> pid == successor.leader().pid()).isPresent());
    assertThat(successor.leader().isAlive()).isTrue();
    assertThat(old.artifacts().get(ArtifactKind.DIRECTORY)).doesNotExist();
  }

  private boolean successorListening(SessionRecord old) {
    try (Stream<Path> files = Files.list(store.directory())) {
      return files
          .filter(f -> f.getFileName().toString().startsWith(NAME + ".gen-"))
          .map(dir -> dir.resolve(Listener.SOCKET_FILE))
          .filter(
              socket ->
                  !socket.equals(old.endpoint() instanceof Endpoint.UnixSocket u ? u.path() : null))
          .anyMatch(socket -> EndpointProbe.probe(Endpoint.unix(socket)).isReachable());
    } catch (IOException e) {
      return false;
    }
  }

  private Optional<Long> readOwner() {
    try {
      ReadResult result = store.read(NAME);
      return result.isValid()
          ? Optional.of(result.record().orElseThrow().owner().pid())
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  @Test
  void aStartupOverrunTakesTheBrokersWholeTreeDown() throws Exception {
    Path log = temp.resolve("broker.log");
    // The backend must be up before the startup overruns, also when a loaded machine takes
    // seconds to start the broker's JVM.
    ProcessTree broker =
        startBroker(
            log,
            "-Dtest.stall=true",
            "-Dlifecycle.broker.startupTimeout=5s",
            "-Dlifecycle.broker.backendGrace=300ms");
    List<ProcessIdentity> backends = awaitBackends(log);

    assertThat(broker.leader().waitFor(15, TimeUnit.SECONDS)).isTrue();
    assertThat(broker.leader().exitValue()).isEqualTo(BrokerRuntime.STARTUP_OVERRUN_EXIT_CODE);
    assertThat(backends).allMatch(Reaper::isGone);
    assertThat(store.recordFile(NAME)).doesNotExist();
    assertThat(Files.readString(log)).contains("was not serving within");
  }

  private static List<ProcessIdentity> awaitBackends(Path log) {
    String[] line = new String[1];
    Reaper.until(
        Duration.ofSeconds(20),
        "backend started",
        () -> {
          try {
            line[0] =
                Files.readAllLines(log).stream()
                    .filter(l -> l.startsWith("BACKEND "))
                    .findFirst()
                    .orElse(null);
            return line[0] != null;
          } catch (IOException e) {
            return false;
          }
        });
    return identities(line[0].substring("BACKEND ".length()));
  }

  @Test
  void aClientTerminatesABrokerThatMissesItsReadinessBound() throws Exception {
    BrokerClient client =
        BrokerClient.builder()
            .store(store)
            .name(NAME)
            .command(
                () ->
                    Brokers.command(
                        store.directory(),
                        NAME,
                        List.of(
                            "-Dtest.stall=true",
                            "-Dlifecycle.broker.startupTimeout=0",
                            "-Dlifecycle.broker.backendGrace=300ms")))
            .readyTimeout(Limit.ofMillis(1500))
            .build();

    Throwable thrown = catchThrowable(client::ensure);

    assertThat(thrown).isInstanceOf(BrokerException.class).hasMessageContaining("not serving");
    assertThat(((BrokerException) thrown).pid()).isPresent();
    // Already gone when ensure() fails: the broker (via its own pass) and its backend.
    assertThat(reaper.started()).isEmpty();
    assertThat(store.recordFile(NAME)).doesNotExist();
  }

  @Test
  void aSecondBrokerNeverPublishesOverALiveOne() throws Exception {
    // What a killed spawner leads to: its lock drops while its broker starts, the next starter
    // spawns another. Both start here at once; exactly one may serve.
    ProcessTree first = startBroker(temp.resolve("first.log"));
    awaitRecordFile();
    SessionRecord serving = validRecord();
    ProcessTree second = startBroker(temp.resolve("second.log"));

    // An unconditional publish would let the second replace the record, and both would serve.
    assertThat(second.leader().waitFor(30, TimeUnit.SECONDS)).as("second broker exits").isTrue();
    assertThat(Files.readString(temp.resolve("second.log"))).contains("NAME_TAKEN");
    assertThat(validRecord().token()).isEqualTo(serving.token());
    assertThat(first.leader().isAlive()).isTrue();
    try (Stream<Path> files = Files.list(store.directory())) {
      assertThat(files.filter(f -> f.getFileName().toString().startsWith(NAME + ".gen-")))
          .as("only the serving broker's generation directory")
          .containsExactly(serving.artifacts().get(ArtifactKind.DIRECTORY));
    }
  }

  @Test
  void aBrokerSigkilledRightAfterSpawningItsBackendLeavesNoTree() throws Exception {
    ProcessTree broker =
        startBroker(
            temp.resolve("broker.log"),
            "-Dtest.dieAfterSpawn=true",
            "-Dlifecycle.tether.grace=300ms");

    assertThat(broker.leader().waitFor(30, TimeUnit.SECONDS)).as("broker killed itself").isTrue();
    assertThat(broker.leader().exitValue()).isEqualTo(128 + 9);
    // Its backend (sh, a sleep, a TERM-ignoring sleep) was bound to the tether before it started:
    // with a spawn that binds afterwards, this moment orphans the tree for good.
    // The last list read is in the failure message: which of them outlived the tether.
    Await.until(
        Duration.ofSeconds(20), "backend tree and tether gone", reaper::started, List::isEmpty);
  }
}
