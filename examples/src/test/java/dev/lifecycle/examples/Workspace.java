package dev.lifecycle.examples;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.lifecycle.broker.BrokerClient;
import dev.lifecycle.broker.BrokerConnection;
import dev.lifecycle.broker.BrokerSession;
import dev.lifecycle.examples.broker.BrokerCommand;
import dev.lifecycle.examples.broker.ExampleBroker;
import dev.lifecycle.examples.broker.ExampleJson;
import dev.lifecycle.examples.cli.Cli;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.record.ReadResult;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.testing.Await;
import dev.lifecycle.time.Limit;
import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * One test's workspace: a private record store, the broker's JVM options, and a marker variable
 * that every process started for it inherits (CLIs, broker, app server, MCP servers, tether), so
 * "everything is gone" is checked by the marker and not by a list that might miss one.
 */
final class Workspace implements AutoCloseable {
  static final String MARK = "EXAMPLES_TEST_MARK";
  static final ProcessPlatform OS = ProcessPlatform.get();

  final Path dir;
  final String mark = UUID.randomUUID().toString();
  final List<String> options = new ArrayList<>();

  Workspace(String... brokerOptions) throws IOException {
    this(Files.createTempDirectory("examples-ws-"), brokerOptions);
  }

  Workspace(Path dir, String... brokerOptions) {
    this.dir = dir;
    options.add("-Dlifecycle.broker.backendGrace=500ms");
    options.add("-Dlifecycle.tether.grace=500ms");
    options.addAll(List.of(brokerOptions));
  }

  RecordStore store() throws IOException {
    return RecordStore.open(dir);
  }

  BrokerClient client() throws IOException {
    return BrokerClient.builder()
        .store(store())
        .name(Cli.BROKER_NAME)
        .command(
            () -> {
              ProcessBuilder b = BrokerCommand.broker(dir, options);
              b.environment().put(MARK, mark);
              return b;
            })
        .readyTimeout(Limit.ofSeconds(30))
        .build();
  }

  /** Ensures a broker (started by this JVM, detached) and returns it. */
  BrokerSession ensure() throws IOException {
    return client().ensure();
  }

  /** A CLI process: {@code Cli <dir> <request>} with the broker options and the marker. */
  ProcessBuilder cliCommand(String request) {
    ProcessBuilder b =
        BrokerCommand.javaCommand(Cli.class, options, List.of(dir.toString(), request))
            .redirectInput(Redirect.from(new File("/dev/null")));
    b.environment().put(MARK, mark);
    return b;
  }

  /** The CLI command line (for ConcurrentLaunch), with the marker set by the caller. */
  List<String> cliArgv(String request) {
    return cliCommand(request).command();
  }

  record CliRun(int exit, String stdout, String stderr, long pid, Duration elapsed) {}

  CliRun cli(String request) throws Exception {
    long t0 = System.nanoTime();
    Process p = cliCommand(request).start();
    String out = new String(p.getInputStream().readAllBytes(), UTF_8).trim();
    String err = new String(p.getErrorStream().readAllBytes(), UTF_8).trim();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("CLI did not exit within 30 s: " + request);
    }
    return new CliRun(p.exitValue(), out, err, p.pid(), Duration.ofNanos(System.nanoTime() - t0));
  }

  static BrokerConnection connect(BrokerSession session) throws IOException {
    return BrokerConnection.open(session.endpoint()); // consumes the greeting
  }

  /** A reply that does not come within this bound fails the test instead of hanging it. */
  static final Duration REPLY_BOUND = Duration.ofSeconds(15);

  static void send(BrokerConnection ch, String line) throws IOException {
    ch.send(line, REPLY_BOUND);
  }

  /** Reads one reply line, bounded by {@link #REPLY_BOUND} (the connection is closed past it). */
  static String readLine(BrokerConnection ch) throws IOException {
    try {
      return ch.receive(REPLY_BOUND);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no reply within " + REPLY_BOUND, e);
    }
  }

  static String request(BrokerConnection ch, String line) throws IOException {
    send(ch, line);
    return readLine(ch);
  }

  /** One request on a fresh connection to {@code session}. */
  static Map<?, ?> call(BrokerSession session, String line) throws Exception {
    try (BrokerConnection ch = connect(session)) {
      return (Map<?, ?>) ExampleJson.parse(request(ch, line));
    }
  }

  static Map<?, ?> status(BrokerSession session) throws Exception {
    return (Map<?, ?>) call(session, "{\"op\":\"status\"}").get("result");
  }

  /** Pids of the broker's backend tree and tether sidecar, as the broker reports them. */
  static List<ProcessIdentity> backendOf(BrokerSession session) throws Exception {
    List<ProcessIdentity> ids = new ArrayList<>();
    for (Object pid : (List<?>) status(session).get("backend")) {
      OS.identify(((Number) pid).longValue()).ifPresent(ids::add);
    }
    return ids;
  }

  /** Every running process carrying this workspace's marker. */
  Set<Long> marked() {
    return OS.findByEnvironment(MARK, mark);
  }

  static boolean gone(ProcessIdentity id) {
    return OS.probe(id) == Liveness.GONE;
  }

  static boolean allGone(List<ProcessIdentity> ids) {
    return ids.stream().allMatch(Workspace::gone);
  }

  /** Polls until {@code probe} finds something, failing the test past {@code within}. */
  static <T> T pollFor(Duration within, java.util.function.Supplier<java.util.Optional<T>> probe) {
    return Await.until(within, "something found", probe, java.util.Optional::isPresent).get();
  }

  /** Polls until {@code condition} holds; false after {@code within}. */
  static boolean poll(Duration within, BooleanSupplier condition) {
    return Await.within(within, condition);
  }

  String log() {
    try {
      Path log = dir.resolve("broker.log");
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      return e.toString();
    }
  }

  /**
   * Asks a serving broker to shut down, waits for everything carrying the marker to go, and
   * SIGKILLs (identity-checked) whatever is left so the next test starts clean.
   */
  @Override
  public void close() {
    shutdownAll();
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort
    }
  }

  /** Shuts the broker down (by request) and sweeps anything left carrying the marker. */
  void shutdownAll() {
    try {
      ReadResult read = store().read(Cli.BROKER_NAME);
      if (read.isValid()) {
        try {
          call(new BrokerSession(read.record().orElseThrow(), false), "{\"op\":\"shutdown\"}");
        } catch (Exception e) {
          // already shutting down
        }
      }
    } catch (IOException e) {
      // store gone: fall through to the sweep
    }
    if (!poll(Duration.ofSeconds(10), () -> marked().isEmpty())) {
      for (long pid : marked()) {
        OS.identify(pid).ifPresent(id -> OS.signal(id, Signal.KILL));
      }
      poll(Duration.ofSeconds(5), () -> marked().isEmpty());
    }
  }

  static String javaOption(String key, String value) {
    return "-D" + key + "=" + value;
  }

  static Class<?> brokerMain() {
    return ExampleBroker.class;
  }
}
