package dev.lifecycle.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lifecycle.mcp.McpServers.Fixture;
import dev.lifecycle.mcp.StdioShutdownReport.Step;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.time.Limit;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpTransportException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The transport's limits, failure paths and ladder settings, each with a real MCP server. */
@NoProcessLeaks
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SupervisedStdioClientTransportTest {
  @RegisterExtension final ServerTag servers = ServerTag.nothingLeft();

  @BeforeAll
  static void tether() {
    Tether.shared(); // before the first baseline: it lives as long as this JVM
  }

  @Test
  void theIdleTimeoutWaitsForTheRequestInFlightThenShutsTheServerDown() throws Exception {
    SupervisedStdioClientTransport transport =
        everything(Fixture.NONE).idleTimeout(Limit.ofSeconds(3)).build();
    McpSyncClient client = client(transport);
    client.initialize();
    // 7 s in flight, over twice the idle timeout: the request's lease holds it off.
    McpSchema.CallToolResult result =
        client.callTool(
            new McpSchema.CallToolRequest(
                "trigger-long-running-operation", Map.of("duration", 7, "steps", 7)));
    assertThat(((McpSchema.TextContent) result.content().get(0)).text()).contains("completed");
    assertThat(transport.isRunning()).isTrue();

    shutDownFor(transport, ShutdownReason.IDLE_TIMEOUT);
    assertThatThrownBy(client::listTools).hasStackTraceContaining("IDLE_TIMEOUT");
    client.closeGracefully();
  }

  @Test
  void theWallClockLimitEndsTheServerAndFailsTheRequestInFlight() throws Exception {
    SupervisedStdioClientTransport transport =
        everything(Fixture.NONE).wallClockLimit(Limit.ofSeconds(6)).build();
    McpSyncClient client = client(transport);
    // Counted from the spawn: on a loaded machine npx may still be starting when it fires, and
    // then initialize is the request it fails. Either way a request in flight fails with it.
    failsWithin(
            Duration.ofSeconds(25),
            () -> {
              client.initialize();
              client.callTool(
                  new McpSchema.CallToolRequest(
                      "trigger-long-running-operation", Map.of("duration", 60, "steps", 6)));
            })
        .hasStackTraceContaining("WALL_CLOCK");
    shutDownFor(transport, ShutdownReason.WALL_CLOCK);
    client.closeGracefully();
  }

  @Test
  void theStartupBoundReclaimsAServerStuckBeforeItReadsStdin() throws Exception {
    SupervisedStdioClientTransport transport =
        everything(Fixture.STALL).startupTimeout(Limit.ofMillis(1500)).build();
    McpSyncClient client = client(transport);
    // the startup bound, not the client's 30 s initialization timeout
    failsWithin(Duration.ofSeconds(15), client::initialize)
        .hasStackTraceContaining("STARTUP_TIMEOUT");
    StdioShutdownReport report = shutDownFor(transport, ShutdownReason.STARTUP_TIMEOUT);
    assertThat(report.endedBy()).isEqualTo(Step.TERM); // blocked, not reading: EOF cannot end it
  }

  @Test
  void npxFailingToFindTheServerFailsInitializeWithNpmsOwnWords() throws Exception {
    SupervisedStdioClientTransport transport =
        SupervisedStdioClientTransport.builder(McpServers.missingProgram(servers.tag())).build();
    McpSyncClient client = client(transport);
    failsWithin(Duration.ofSeconds(20), client::initialize)
        .hasStackTraceContaining("SERVER_EXITED")
        .hasStackTraceContaining("npm error"); // npm's own words: its stderr tail
    StdioShutdownReport report = transport.onShutdown().get(20, TimeUnit.SECONDS);
    assertThat(report.reason()).isEqualTo(ShutdownReason.SERVER_EXITED);
    assertThat(report.exitCode()).hasValue(1);
    assertThat(report.cause().orElseThrow()).contains("npm error");
    assertThat(report.noSurvivorSeen()).isTrue();
  }

  @Test
  void aProgramThatCannotBeStartedFailsConnectAndInitializeWithoutHanging() throws Exception {
    SupervisedStdioClientTransport transport =
        new SupervisedStdioClientTransport(
            ServerParameters.builder("/nonexistent/mcp-server").build(),
            McpJsonDefaults.getMapper());
    McpSyncClient client = client(transport);
    failsWithin(Duration.ofSeconds(10), client::initialize)
        .hasStackTraceContaining("cannot start MCP server");
    StdioShutdownReport report = transport.onShutdown().get(5, TimeUnit.SECONDS);
    assertThat(report.endedBy()).isEqualTo(Step.NEVER_STARTED);
    assertThat(report.reason()).isEqualTo(ShutdownReason.CONNECT_FAILED);
    assertThat(transport.processTree()).isEmpty();
    assertThatThrownBy(() -> transport.connect(m -> m).block(Duration.ofSeconds(5)))
        .isInstanceOf(McpTransportException.class)
        .hasMessageContaining("shut down");
  }

  @Test
  void whatTheServerWroteBeforeItExitedNamesTheFailure() throws Exception {
    // A server that prints its usage and exits at once: its exit and its line race to the
    // transport (the exit often wins on a loaded machine); the line must name the failure.
    for (int trial = 0; trial < 10; trial++) {
      ServerParameters.Builder params =
          ServerParameters.builder("sh").args("-c", "echo 'Available transports: stdio'; exit 1");
      params.addEnvVar(McpServers.TAG, servers.tag());
      SupervisedStdioClientTransport transport =
          SupervisedStdioClientTransport.builder(params.build()).build();
      McpSyncClient client = client(transport);
      assertThatThrownBy(client::initialize)
          .as("trial %d", trial)
          .hasStackTraceContaining("not JSON-RPC: Available transports: stdio");
      StdioShutdownReport report = transport.onShutdown().get(20, TimeUnit.SECONDS);
      assertThat(report.reason()).as("trial %d", trial).isEqualTo(ShutdownReason.CONNECT_FAILED);
      assertThat(report.noSurvivorSeen()).isTrue();
    }
  }

  @Test
  void disabledLadderStepsDoNotWait() throws Exception {
    ShutdownLadder immediate =
        ShutdownLadder.defaults().withStdinWait(Duration.ZERO).withTermGrace(Duration.ZERO);
    SupervisedStdioClientTransport transport =
        everything(Fixture.IGNORE_TERM).shutdownLadder(immediate).build();
    McpSyncClient client = client(transport);
    client.initialize();
    long start = System.nanoTime();
    assertThat(client.closeGracefully()).isTrue();
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    StdioShutdownReport report = transport.onShutdown().get(5, TimeUnit.SECONDS);
    assertThat(report.endedBy()).isEqualTo(Step.KILL);
    assertThat(took)
        .as("no stdin wait, no grace (the defaults wait 4 s)")
        .isLessThan(Duration.ofSeconds(3));
    assertThat(Tagged.alive(servers.tag())).isEmpty();
  }

  @Test
  void theServerGoingAwayReachesTheExceptionHandler() throws Exception {
    SupervisedStdioClientTransport transport = everything(Fixture.NONE).build();
    AtomicReference<Throwable> seen = new AtomicReference<>();
    McpSyncClient client = client(transport);
    client.initialize();
    transport.setExceptionHandler(seen::set); // after the client set its own
    CompletableFuture<StdioShutdownReport> report = transport.onShutdown();
    Tagged.kill(
        Tagged.alive(servers.tag()).stream().filter(s -> s.command().startsWith("node ")).toList());
    assertThat(report.get(20, TimeUnit.SECONDS).reason()).isEqualTo(ShutdownReason.SERVER_EXITED);
    assertThat(seen.get()).isInstanceOf(McpTransportException.class);
    assertThat(seen.get().getMessage()).contains("SERVER_EXITED");
    assertThat(Tagged.awaitNone(servers.tag(), Duration.ofSeconds(5))).isEmpty();
    client.closeGracefully();
  }

  @Test
  void theAsyncClientWorksTheSame() throws Exception {
    SupervisedStdioClientTransport transport = everything(Fixture.LINGER).build();
    McpAsyncClient client =
        McpClient.async(transport)
            .requestTimeout(Duration.ofSeconds(30))
            .initializationTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize().block(Duration.ofSeconds(30));
    McpSchema.CallToolResult sum =
        client
            .callTool(new McpSchema.CallToolRequest("get-sum", Map.of("a", 2, "b", 3)))
            .block(Duration.ofSeconds(30));
    assertThat(((McpSchema.TextContent) sum.content().get(0)).text()).contains("5");
    client.closeGracefully().block(Duration.ofSeconds(15));
    StdioShutdownReport report = transport.onShutdown().get(1, TimeUnit.SECONDS);
    assertThat(report.endedBy()).isEqualTo(Step.TERM); // the server outlives EOF: SIGTERM ends it
    assertThat(StdioLeakComparisonTest.sentSigterm(report)).as("%s", report).isTrue();
    assertThat(Tagged.alive(servers.tag())).isEmpty();
  }

  @Test
  void theSdksNonGracefulCloseStillRunsTheWholeLadder() throws Exception {
    SupervisedStdioClientTransport transport = everything(Fixture.IGNORE_TERM).build();
    McpSyncClient client = client(transport);
    client.initialize();
    client.close(); // returns at once; the shutdown runs on a thread of its own
    StdioShutdownReport report = shutDownFor(transport, ShutdownReason.CLOSED);
    assertThat(report.endedBy()).isEqualTo(Step.KILL);
  }

  @Test
  void aStrayLineAfterTheFirstMessageIsSkippedNotFatal() throws Exception {
    SupervisedStdioClientTransport transport = everything(Fixture.NOISY_STDOUT).build();
    McpSyncClient client = client(transport);
    client.initialize();
    assertThat(client.listTools().tools()).isNotEmpty();
    assertThat(transport.isRunning()).isTrue();
    assertThat(client.closeGracefully()).isTrue();
    assertThat(transport.onShutdown().get(5, TimeUnit.SECONDS).reason())
        .isEqualTo(ShutdownReason.CLOSED);
  }

  @Test
  void aLineOverTheBoundEndsTheServerInsteadOfBufferingIt() throws Exception {
    SupervisedStdioClientTransport transport =
        everything(Fixture.NONE)
            .maxLineBytes(64) // the initialize answer is a few kB
            .build();
    McpSyncClient client = client(transport);
    assertThatThrownBy(client::initialize).hasStackTraceContaining("longer than 64 bytes");
    shutDownFor(transport, ShutdownReason.PROTOCOL_ERROR);
  }

  /** The transport's builder for the reference server with {@code fixture}. */
  private SupervisedStdioClientTransport.Builder everything(Fixture fixture) {
    return SupervisedStdioClientTransport.builder(McpServers.everything(servers.tag(), fixture));
  }

  /** Runs {@code call}, which must throw within {@code bound}; the assertion on what it threw. */
  private static AbstractThrowableAssert<?, ? extends Throwable> failsWithin(
      Duration bound, ThrowingCallable call) {
    long start = System.nanoTime();
    Throwable thrown = catchThrowable(call);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(thrown).as("the call failed").isNotNull();
    assertThat(took).as("time to fail").isLessThan(bound);
    return assertThat(thrown);
  }

  /** The one shutdown's report, once it says {@code reason}, no survivor, and no tagged process. */
  private StdioShutdownReport shutDownFor(
      SupervisedStdioClientTransport transport, ShutdownReason reason) throws Exception {
    StdioShutdownReport report = transport.onShutdown().get(20, TimeUnit.SECONDS);
    assertThat(report.reason()).isEqualTo(reason);
    assertThat(report.noSurvivorSeen()).isTrue();
    assertThat(Tagged.alive(servers.tag())).isEmpty();
    return report;
  }

  private static McpSyncClient client(SupervisedStdioClientTransport transport) {
    return McpClient.sync(transport)
        .requestTimeout(Duration.ofSeconds(30))
        .initializationTimeout(Duration.ofSeconds(30))
        .build();
  }
}
