package dev.lifecycle.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.mcp.McpServers.Fixture;
import dev.lifecycle.mcp.StdioShutdownReport.Step;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.tether.Tether;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The same scenarios with real MCP servers ({@code server-everything} through {@code npx}: npm exec
 * -> sh -> node) for this library's transport and for the SDK's own {@code StdioClientTransport}.
 * For ours every case asserts that nothing is left (a /proc scan for the test's tag, plus
 * {@code @NoProcessLeaks}); for the SDK's the leftovers are counted, written to {@code
 * target/mcp-comparison.txt}, and then killed by the test (by pid, identity-checked), so the
 * difference is measured, not claimed.
 */
@NoProcessLeaks
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StdioLeakComparisonTest {
  /** How long the SDK's leftovers get to go away by themselves before they are counted. */
  private static final Duration SETTLE = Duration.ofSeconds(3);

  private static final Map<String, String> RESULTS = new ConcurrentSkipListMap<>();

  enum Kind {
    LIFECYCLE,
    SDK;

    McpClientTransport transport(ServerParameters params) {
      return this == LIFECYCLE
          ? new SupervisedStdioClientTransport(params, McpJsonDefaults.getMapper())
          : new StdioClientTransport(params, McpJsonDefaults.getMapper());
    }
  }

  @RegisterExtension final ServerTag servers = ServerTag.leftoversKilled();

  @BeforeAll
  static void tether() {
    Tether.shared(); // started before the first baseline: it lives as long as this JVM
  }

  @AfterAll
  static void writeResults() throws IOException {
    if (RESULTS.isEmpty()) {
      return;
    }
    StringBuilder out =
        new StringBuilder("# case | transport | outcome (load average ")
            .append(Files.readString(Path.of("/proc/loadavg")).strip())
            .append(")\n");
    RESULTS.forEach((key, value) -> out.append(key).append(" | ").append(value).append('\n'));
    System.out.print(out);
    Files.writeString(Path.of("target", "mcp-comparison.txt"), out, StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aNormalSession(Kind kind) throws Exception {
    closeAfterSession(kind, Fixture.NONE, "1 normal session", Step.STDIN_EOF);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerThatKeepsRunningAfterStdinEof(Kind kind) throws Exception {
    closeAfterSession(kind, Fixture.LINGER, "2 server keeps running after stdin EOF", Step.TERM);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerThatIgnoresSigterm(Kind kind) throws Exception {
    closeAfterSession(kind, Fixture.IGNORE_TERM, "3 server ignores EOF and SIGTERM", Step.KILL);
  }

  private void closeAfterSession(Kind kind, Fixture fixture, String name, Step expected)
      throws Exception {
    McpClientTransport transport = kind.transport(McpServers.everything(servers.tag(), fixture));
    McpSyncClient client = client(transport, Duration.ofSeconds(30));
    client.initialize();
    assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name).contains("echo");
    McpSchema.CallToolResult echo =
        client.callTool(new McpSchema.CallToolRequest("echo", Map.of("message", "hello")));
    assertThat(((McpSchema.TextContent) echo.content().get(0)).text()).contains("hello");
    List<Tagged.Survivor> running = Tagged.alive(servers.tag());
    assertThat(running) // the npx chain: npm exec -> sh -> node
        .extracting(Tagged.Survivor::command)
        .anyMatch(c -> c.startsWith("npm exec"))
        .anyMatch(c -> c.startsWith("node ") && c.contains(McpServers.BIN));

    long start = System.nanoTime();
    boolean closed = client.closeGracefully();
    long closeMillis = millisSince(start);
    List<Tagged.Survivor> atReturn = Tagged.alive(servers.tag());

    if (kind == Kind.LIFECYCLE) {
      StdioShutdownReport report = report(transport);
      record(name, kind, closed, closeMillis, running.size(), atReturn.size(), atReturn.size());
      assertThat(closed).isTrue();
      assertThat(report.reason()).isEqualTo(ShutdownReason.CLOSED);
      assertThat(report.endedBy()).isEqualTo(expected);
      assertThat(report.noSurvivorSeen()).as("%s", report).isTrue();
      if (expected == Step.KILL) {
        assertThat(report.tree().orElseThrow().killed()).isNotEmpty();
      }
      if (expected != Step.STDIN_EOF) {
        assertThat(sentSigterm(report)).as("%s", report).isTrue();
      }
      assertThat(atReturn).as("left after closeGracefully() returned").isEmpty();
    } else {
      List<Tagged.Survivor> later = Tagged.awaitNone(servers.tag(), SETTLE);
      record(name, kind, closed, closeMillis, running.size(), atReturn.size(), later.size());
      System.out.printf("SDK %s leftovers: %s%n", name, later);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aClientJvmKilledBySigkill(Kind kind) throws Exception {
    String name = "4 client JVM SIGKILLed (server keeps running after EOF)";
    Path log = Path.of("target", "client-main-" + kind + ".log");
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:TieredStopAtLevel=1",
            "--enable-native-access=ALL-UNNAMED",
            "-Dlifecycle.tether.grace=1s",
            "-Dlifecycle.mcp.servers=" + McpServers.cache(),
            "-cp",
            System.getProperty("java.class.path"),
            ClientMain.class.getName(),
            kind.name(),
            servers.tag(),
            Fixture.LINGER.name());
    Process child =
        new ProcessBuilder(command)
            .redirectError(log.toFile())
            .redirectInput(Redirect.PIPE)
            .redirectOutput(Redirect.PIPE)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> readLine(out));
      String line = ready.get(60, TimeUnit.SECONDS);
      assertThat(line).as("child output (log in %s)", log).startsWith("READY ");
      long sidecar = Long.parseLong(line.substring("READY ".length()).strip());
      List<Tagged.Survivor> running = Tagged.alive(servers.tag());
      assertThat(running).hasSizeGreaterThanOrEqualTo(3);

      ProcessIdentity client = ProcFs.identity(child.pid()).orElseThrow();
      long start = System.nanoTime();
      ProcessPlatform.get().signal(client, Signal.KILL);
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();

      if (kind == Kind.LIFECYCLE) {
        // Tether grace 1 s, then SIGKILL; the rest is a loaded 2-core machine.
        List<Tagged.Survivor> left = Tagged.awaitNone(servers.tag(), Duration.ofSeconds(10));
        long goneMillis = millisSince(start);
        record(name, kind, true, goneMillis, running.size(), left.size(), left.size());
        assertThat(left).as("left after the client JVM was SIGKILLed").isEmpty();
        awaitGone(sidecar, Duration.ofSeconds(10)); // the child's tether sidecar is done too
      } else {
        List<Tagged.Survivor> left = Tagged.awaitNone(servers.tag(), SETTLE);
        record(name, kind, true, millisSince(start), running.size(), left.size(), left.size());
        System.out.printf("SDK %s leftovers: %s%n", name, left);
      }
    } finally {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aFailedInitialize(Kind kind) throws Exception {
    String name = "5 initialize refused (error answer, server stays up)";
    McpClientTransport transport =
        kind.transport(McpServers.everything(servers.tag(), Fixture.REFUSE_INITIALIZE));
    McpSyncClient client = client(transport, Duration.ofSeconds(30));
    long start = System.nanoTime();
    assertThatThrownBy(client::initialize)
        .hasStackTraceContaining("fixture refused initialize: no API key"); // the server's words
    long failMillis = millisSince(start);
    if (kind == Kind.LIFECYCLE) {
      // Reclaimed by the transport itself, before (and without) any close by the caller.
      StdioShutdownReport report = report(transport);
      List<Tagged.Survivor> left = Tagged.alive(servers.tag());
      record(name, kind, true, failMillis, -1, left.size(), left.size());
      assertThat(report.reason()).isEqualTo(ShutdownReason.CONNECT_FAILED);
      assertThat(report.cause().orElseThrow()).contains("initialize failed");
      assertThat(report.noSurvivorSeen()).isTrue();
      assertThat(left).as("left after the failed initialize, no close called").isEmpty();
      assertThat(client.closeGracefully()).isTrue();
    } else {
      int beforeClose = Tagged.alive(servers.tag()).size();
      boolean closed = client.closeGracefully();
      List<Tagged.Survivor> atReturn = Tagged.alive(servers.tag());
      List<Tagged.Survivor> later = Tagged.awaitNone(servers.tag(), SETTLE);
      record(name, kind, closed, failMillis, beforeClose, atReturn.size(), later.size());
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerThatExitsBeforeAnsweringWithGarbageOnStdout(Kind kind) throws Exception {
    // "bogus" is not a transport: the real server prints its usage (to stdout) and exits 1.
    String name = "6 server prints usage to stdout and exits 1";
    McpClientTransport transport =
        kind.transport(McpServers.everything(servers.tag(), Fixture.NONE, "bogus"));
    McpSyncClient client = client(transport, Duration.ofSeconds(8));
    long start = System.nanoTime();
    Throwable failure = catchThrowable(client::initialize);
    long failMillis = millisSince(start);
    List<Tagged.Survivor> left = Tagged.awaitNone(servers.tag(), Duration.ofSeconds(5));
    record(name, kind, client.closeGracefully(), failMillis, -1, left.size(), left.size());
    assertThat(failure).isNotNull();
    if (kind == Kind.LIFECYCLE) {
      assertThat(failure)
          .hasStackTraceContaining("not JSON-RPC: Available transports:")
          .hasStackTraceContaining("Unknown transport: bogus");
      // The first line, not the request timeout, ended it (the time includes npx's start-up,
      // which alone can take seconds on a loaded machine, so the cause is what is asserted).
      assertThat(causes(failure))
          .as("ended by the request timeout")
          .noneMatch(t -> t instanceof java.util.concurrent.TimeoutException);
      assertThat(report(transport).reason()).isEqualTo(ShutdownReason.CONNECT_FAILED);
      assertThat(left).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void fiveConcurrentClients(Kind kind) throws Exception {
    String name = "7 five concurrent clients (server keeps running after EOF)";
    ExecutorService pool = Executors.newFixedThreadPool(5);
    try {
      List<Future<Boolean>> closes = new ArrayList<>();
      List<McpClientTransport> transports = new ArrayList<>();
      CountDownLatch go = new CountDownLatch(1);
      for (int i = 0; i < 5; i++) {
        McpClientTransport transport =
            kind.transport(McpServers.everything(servers.tag(), Fixture.LINGER));
        transports.add(transport);
        closes.add(
            pool.submit(
                () -> {
                  go.await();
                  McpSyncClient client = client(transport, Duration.ofSeconds(60));
                  client.initialize();
                  client.listTools();
                  return client.closeGracefully();
                }));
      }
      long start = System.nanoTime();
      go.countDown();
      int closedOk = 0;
      for (Future<Boolean> close : closes) {
        closedOk += close.get(80, TimeUnit.SECONDS) ? 1 : 0;
      }
      long millis = millisSince(start);
      List<Tagged.Survivor> atReturn = Tagged.alive(servers.tag());
      if (kind == Kind.LIFECYCLE) {
        record(name, kind, closedOk == 5, millis, -1, atReturn.size(), atReturn.size());
        assertThat(closedOk).isEqualTo(5);
        for (McpClientTransport transport : transports) {
          assertThat(report(transport).noSurvivorSeen()).isTrue();
        }
        assertThat(atReturn).isEmpty();
      } else {
        List<Tagged.Survivor> later = Tagged.awaitNone(servers.tag(), SETTLE);
        record(name, kind, closedOk == 5, millis, -1, atReturn.size(), later.size());
      }
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerKilledWhileARequestIsInFlight(Kind kind) throws Exception {
    String name = "8 server SIGKILLed mid-request (request timeout 15 s)";
    McpClientTransport transport =
        kind.transport(McpServers.everything(servers.tag(), Fixture.NONE));
    CountDownLatch progress = new CountDownLatch(1);
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(15)) // initialize too: npx starts slowly under load
            .initializationTimeout(Duration.ofSeconds(30))
            .progressConsumer(p -> progress.countDown())
            .build();
    client.initialize();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CompletableFuture<Void> call =
        CompletableFuture.runAsync(
            () -> {
              try {
                client.callTool(
                    McpSchema.CallToolRequest.builder("trigger-long-running-operation")
                        .arguments(Map.of("duration", 60, "steps", 60))
                        .progressToken("p1")
                        .build());
              } catch (RuntimeException e) {
                failure.set(e);
              }
            });
    assertThat(progress.await(30, TimeUnit.SECONDS)).as("first progress notification").isTrue();
    Tagged.Survivor server =
        Tagged.alive(servers.tag()).stream()
            .filter(s -> s.command().startsWith("node ") && s.command().contains(McpServers.BIN))
            .findFirst()
            .orElseThrow();
    long start = System.nanoTime();
    ProcessPlatform.get().signal(server.identity(), Signal.KILL);
    call.get(30, TimeUnit.SECONDS);
    long failMillis = millisSince(start);
    boolean closed = client.closeGracefully();
    List<Tagged.Survivor> left = Tagged.awaitNone(servers.tag(), Duration.ofSeconds(5));
    record(name, kind, closed, failMillis, -1, left.size(), left.size());
    assertThat(failure.get()).as("the pending call failed").isNotNull();
    if (kind == Kind.LIFECYCLE) {
      assertThat(failure.get()).hasStackTraceContaining("SERVER_EXITED");
      assertThat(failMillis).as("fails when the server dies, not at the timeout").isLessThan(3000);
      assertThat(report(transport).reason()).isEqualTo(ShutdownReason.SERVER_EXITED);
      assertThat(left).isEmpty();
    }
  }

  static McpSyncClient client(McpClientTransport transport, Duration timeout) {
    return McpClient.sync(transport).requestTimeout(timeout).initializationTimeout(timeout).build();
  }

  private static StdioShutdownReport report(McpClientTransport transport) throws Exception {
    return ((SupervisedStdioClientTransport) transport)
        .onShutdown()
        .get(20, TimeUnit.SECONDS); // the ladder's worst case is 7 s
  }

  private static void record(
      String name, Kind kind, boolean closed, long millis, int running, int atReturn, int later) {
    String line =
        String.format(
            "close/fail ok=%s in %d ms | tagged processes while running %s, right after %d, after"
                + " %d s %d",
            closed,
            millis,
            running < 0 ? "n/a" : Integer.toString(running),
            atReturn,
            SETTLE.toSeconds(),
            later);
    RESULTS.put(name + " | " + kind, line);
    System.out.printf("%s | %s | %s%n", name, kind, line);
  }

  private static List<Throwable> causes(Throwable failure) {
    List<Throwable> chain = new ArrayList<>();
    for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  private static Throwable catchThrowable(Runnable body) {
    try {
      body.run();
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  private static String readLine(BufferedReader in) {
    try {
      return String.valueOf(in.readLine());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void awaitGone(long pid, Duration bound) {
    if (pid <= 0) {
      return;
    }
    Await.until(
        bound,
        "pid " + pid + " gone",
        () -> ProcFs.stat(pid).filter(p -> !p.state().hasExited()).isEmpty());
  }

  private static long millisSince(long start) {
    return (System.nanoTime() - start) / 1_000_000;
  }

  /**
   * SIGTERM went out: to the tree's group (whose members may be gone before a scan lists them) or
   * by pid.
   */
  static boolean sentSigterm(StdioShutdownReport report) {
    dev.lifecycle.tree.TerminationReport tree = report.tree().orElseThrow();
    return tree.processGroupId() > 0 || !tree.terminated().isEmpty();
  }
}
