package dev.lifecycle.mcp;

import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.internal.Durations;
import dev.lifecycle.internal.Setting;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.time.Limit;
import dev.lifecycle.tree.ProcessTree;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpTransportException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * An MCP client transport over a server's stdin and stdout, like the SDK's {@code
 * StdioClientTransport} and configured by the same {@link ServerParameters}, whose server runs as a
 * {@link ProcessTree} bound to the {@link Tether}: the wrapper the command names ({@code npx},
 * {@code uvx}, a shell script) and everything it starts are owned, signalled and proven gone as one
 * unit. A drop-in for {@code McpClient.sync(transport)} and {@code McpClient.async(transport)}.
 * Thread-safe; one server per instance, started by the first {@link #connect}.
 *
 * <pre>{@code
 * ServerParameters server = ServerParameters.builder("npx")
 *     .args("-y", "@modelcontextprotocol/server-everything").build();
 * var transport = new SupervisedStdioClientTransport(server, McpJsonDefaults.getMapper());
 * McpSyncClient client = McpClient.sync(transport).build();
 * try {
 *   client.initialize();
 *   client.listTools().tools().forEach(tool -> System.out.println(tool.name()));
 * } finally {
 *   client.closeGracefully(); // the whole npx -> sh -> node chain ends, or is SIGKILLed
 * }
 * }</pre>
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li>Shutdown is the MCP stdio ladder applied to the whole tree ({@link ShutdownLadder}): close
 *       the server's stdin, wait, SIGTERM to the tree, grace, SIGKILL, verify. Every step is
 *       bounded, so {@link #closeGracefully()} completes, also for a server that ignores both EOF
 *       and SIGTERM, and {@link #shutdown()} says how it ended ({@link StdioShutdownReport}).
 *   <li>If this JVM dies, by any means, the tether ends the tree.
 *   <li>A failed connect reclaims the tree at once and surfaces the original error: an error answer
 *       to {@code initialize} reaches the caller as the server sent it; a server that exits first
 *       fails the pending {@code initialize} with its exit code and the tail of its stderr; a first
 *       message that is not JSON-RPC fails it with that line.
 *   <li>A server that dies mid-session fails every request in flight at once (a JSON-RPC error
 *       {@value #CONNECTION_CLOSED}), rather than after the client's request timeout; later sends
 *       fail with a {@link McpTransportException} saying why the transport stopped.
 *   <li>Optional {@link ServerLimits}: a startup bound until {@code initialize} succeeds, an idle
 *       timeout (no request in flight in either direction), a wall-clock ceiling. On expiry the
 *       server is shut down with the ladder and pending requests fail.
 * </ul>
 *
 * <p>Like the SDK's transport, the server's environment is this JVM's plus {@link
 * ServerParameters#getEnv()}, its stderr lines go to a handler (by default logged at INFO), and
 * lines longer than {@link #DEFAULT_MAX_LINE_BYTES} are refused (here: the transport shuts the
 * server down with {@link ShutdownReason#PROTOCOL_ERROR} rather than leaving it running). Unlike
 * it, a line that is not JSON-RPC after the first valid message is logged and skipped instead of
 * ending the session.
 *
 * <p>Tested on Linux (JNA platform) with real servers run through {@code npx}; on macOS it runs
 * with the platform's weaker, untested guarantees; Windows is not supported.
 */
public final class SupervisedStdioClientTransport implements McpClientTransport {
  /** The SDK's default bound on one line from the server: 16 MiB. */
  public static final int DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

  /**
   * The server tree's ceilings where neither code nor configuration sets them: the spin rule at 0.9
   * of a core for 10 minutes without one quieter second, the runaway a server left spinning after
   * its client went away; a busy server pauses long before that. No memory, process or CPU ceiling:
   * what is normal differs too much between servers.
   */
  public static final Ceilings DEFAULT_CEILINGS =
      Ceilings.none().withSpin(0.9, Duration.ofMinutes(10));

  /**
   * Prefix of the system properties that set the server tree's ceilings ({@code
   * lifecycle.mcp.spin}, {@code .spin.window}, {@code .memory}, {@code .processes}, {@code .cpu},
   * {@code .cpu.window}; {@link Ceilings#fromConfig}).
   */
  public static final String CEILINGS_PROPERTY_PREFIX = "lifecycle.mcp";

  /** Prefix of the environment variables that set the ceilings ({@code LIFECYCLE_MCP_SPIN}...). */
  public static final String CEILINGS_ENV_PREFIX = "LIFECYCLE_MCP";

  /**
   * The JSON-RPC error code of requests failed because the server went away (the implementation
   * defined server-error range; the TypeScript SDK's {@code ConnectionClosed}).
   */
  public static final int CONNECTION_CLOSED = -32000;

  private static final Logger LOG = LoggerFactory.getLogger(SupervisedStdioClientTransport.class);

  private final Settings settings;
  private final Supervisor supervisor;

  /**
   * Like the SDK's {@code new StdioClientTransport(params, jsonMapper)}, with default limits.
   *
   * @param params the server's command, arguments and environment
   * @param jsonMapper the mapper that reads and writes the JSON-RPC messages
   */
  public SupervisedStdioClientTransport(ServerParameters params, McpJsonMapper jsonMapper) {
    this(builder(params).jsonMapper(jsonMapper));
  }

  /**
   * Like the SDK's {@code new StdioClientTransport(params, jsonMapper, maxLineBytes)}.
   *
   * @param params the server's command, arguments and environment
   * @param jsonMapper the mapper that reads and writes the JSON-RPC messages
   * @param maxLineBytes the longest line accepted from the server's stdout, in bytes
   * @throws IllegalArgumentException if {@code maxLineBytes} is not positive
   */
  public SupervisedStdioClientTransport(
      ServerParameters params, McpJsonMapper jsonMapper, int maxLineBytes) {
    this(builder(params).jsonMapper(jsonMapper).maxLineBytes(maxLineBytes));
  }

  private SupervisedStdioClientTransport(Builder builder) {
    this.settings = Settings.of(builder);
    this.supervisor = new Supervisor(settings, builder.stderrHandler);
  }

  /**
   * A builder for a transport that starts the server {@code params} describe.
   *
   * @param params the server's command, arguments and environment
   * @return a builder with the default ladder, limits, tether and platform
   */
  public static Builder builder(ServerParameters params) {
    return new Builder(params);
  }

  /**
   * Starts the server as a tree bound to the tether and starts reading its stdout. Fails (with a
   * {@link McpTransportException}) when the program cannot be started or when this transport was
   * connected or shut down before.
   */
  @Override
  public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    Objects.requireNonNull(handler, "handler");
    return Mono.<Void>fromRunnable(() -> supervisor.start(handler))
        .subscribeOn(Schedulers.boundedElastic());
  }

  /**
   * Writes {@code message} as one line to the server's stdin, in call order. The returned {@code
   * Mono} completes once it is written and fails when it cannot be (the server is gone, or the
   * transport was shut down: the error says why).
   */
  @Override
  public Mono<Void> sendMessage(JSONRPCMessage message) {
    Objects.requireNonNull(message, "message");
    return supervisor.send(message);
  }

  /**
   * Shuts the server down with the ladder; completes with the report. Pending requests fail first.
   * Never hangs: bounded by {@link ShutdownLadder#worstCase()} plus a few scans.
   */
  @Override
  public Mono<Void> closeGracefully() {
    return Mono.defer(() -> Mono.fromFuture(shutdown())).then();
  }

  /** Starts the shutdown without waiting for it (the SDK's non-graceful close). */
  @Override
  public void close() {
    shutdown();
  }

  /**
   * Shuts the server down ({@link ShutdownReason#CLOSED}) unless it is already shutting down, and
   * returns the report of the one shutdown that runs (whatever started it).
   *
   * @return a future completed with that shutdown's report; every call gets the same report
   */
  public CompletableFuture<StdioShutdownReport> shutdown() {
    return supervisor.stop(ShutdownReason.CLOSED, null, null);
  }

  /**
   * Completes with the report once the server was shut down, for whatever reason.
   *
   * @return a new future per call; completing or cancelling it does not affect the transport
   */
  public CompletableFuture<StdioShutdownReport> onShutdown() {
    return supervisor.onShutdown();
  }

  /**
   * The server's tree, once started.
   *
   * @return the tree; empty before {@code connect} started the server, or when it could not
   */
  public Optional<ProcessTree> processTree() {
    return supervisor.running().map(running -> running.tree);
  }

  /**
   * The parameters this transport starts its server with.
   *
   * @return the command, arguments and environment given to the builder
   */
  public ServerParameters serverParameters() {
    return settings.params();
  }

  /**
   * The ladder in effect.
   *
   * @return each step as set on the builder, else configured, else its default
   */
  public ShutdownLadder shutdownLadder() {
    return settings.ladder();
  }

  /**
   * The limits in effect.
   *
   * @return each limit as set on the builder, else configured, else its default
   */
  public ServerLimits limits() {
    return settings.limits();
  }

  /**
   * Whether the server was started and no shutdown has begun.
   *
   * @return {@code false} before {@code connect} and from the start of any shutdown on
   */
  public boolean isRunning() {
    return supervisor.isRunning();
  }

  /**
   * Requests in flight now, in both directions (diagnostics).
   *
   * @return requests sent or received and not yet answered; {@code 0} before the server started
   */
  public int requestsInFlight() {
    return supervisor.running().map(running -> running.inFlight.size()).orElse(0);
  }

  /**
   * Where the server's stderr lines go; by default they are logged at INFO.
   *
   * @param handler called with each stderr line, on the transport's stderr reader thread
   * @throws NullPointerException if {@code handler} is {@code null}
   */
  public void setStdErrorHandler(Consumer<String> handler) {
    supervisor.stderrHandler(Objects.requireNonNull(handler, "handler"));
  }

  /** Called with the error when the server goes away or a limit ends it (not on a close). */
  @Override
  public void setExceptionHandler(Consumer<Throwable> handler) {
    supervisor.exceptionHandler(Objects.requireNonNull(handler, "handler"));
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return settings.mapper().convertValue(data, typeRef);
  }

  @Override
  public String toString() {
    String command = settings.params().getCommand();
    return "SupervisedStdioClientTransport[" + command + ", " + processTree().orElse(null) + "]";
  }

  /** Builds a {@link SupervisedStdioClientTransport}. Not thread-safe. */
  public static final class Builder {
    // Read by Settings.of; what is not set in code comes from configuration, else its default.
    final ServerParameters params;
    McpJsonMapper mapper;
    final Overrides inCode = new Overrides(); // the ladder's steps and the limits
    Optional<Path> directory = Optional.empty();
    Optional<Ceilings> ceilings = Optional.empty();
    Supplier<Tether> tether = Tether::shared;
    ProcessPlatform platform;
    int maxLineBytes = DEFAULT_MAX_LINE_BYTES;
    Consumer<String> stderrHandler =
        line -> LOG.info("MCP server stderr: {}", line); // as the SDK's transport does

    private Builder(ServerParameters params) {
      this.params = Objects.requireNonNull(params, "params");
    }

    /**
     * The mapper for the JSON-RPC messages; default {@code McpJsonDefaults.getMapper()} (the
     * binding found on the class path).
     *
     * @param value the mapper
     * @return this builder
     */
    public Builder jsonMapper(McpJsonMapper value) {
      mapper = Objects.requireNonNull(value, "jsonMapper");
      return this;
    }

    /**
     * All three steps of the shutdown ladder, set in code: configuration no longer changes them.
     * Without this call each step is configured ({@link ShutdownLadder}) or its default.
     *
     * @param value the ladder
     * @return this builder
     */
    public Builder shutdownLadder(ShutdownLadder value) {
      Objects.requireNonNull(value, "ladder").setOn(inCode);
      return this;
    }

    /**
     * The ladder's first step, set in code: how long the server may take to exit by itself after
     * its stdin is closed. Configuration no longer changes this step.
     *
     * @param value the wait; {@code 0} goes to SIGTERM at once
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is negative (a huge one is clamped)
     */
    public Builder stdinWait(Duration value) {
      return set(ShutdownLadder.STDIN_WAIT, Durations.nonNegative(value, "stdinWait"));
    }

    /**
     * The ladder's second step, set in code: how long the tree may take to exit after SIGTERM
     * before it is killed. Configuration no longer changes this step.
     *
     * @param value the grace; {@code 0} sends SIGKILL at once
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is negative (a huge one is clamped)
     */
    public Builder termGrace(Duration value) {
      return set(ShutdownLadder.TERM_GRACE, Durations.nonNegative(value, "termGrace"));
    }

    /**
     * The ladder's last step, set in code: how long to wait, after SIGKILL, for the tree to be
     * verified empty. Configuration no longer changes this step.
     *
     * @param value the wait
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is negative (a huge one is clamped)
     */
    public Builder killVerify(Duration value) {
      return set(ShutdownLadder.KILL_VERIFY, Durations.nonNegative(value, "killVerify"));
    }

    /**
     * All three of the server's limits, set in code: configuration no longer changes them. Without
     * this call each limit is configured ({@link ServerLimits}) or its default.
     *
     * @param value the limits
     * @return this builder
     */
    public Builder limits(ServerLimits value) {
      Objects.requireNonNull(value, "limits").setOn(inCode);
      return this;
    }

    /**
     * The server tree's ceilings (memory, processes, CPU, spin), set in code: configuration no
     * longer changes them. Without this call each is configured ({@value #CEILINGS_PROPERTY_PREFIX}
     * {@code .spin} and so on) or as in {@link #DEFAULT_CEILINGS}.
     *
     * @param value the ceilings; {@link Ceilings#none()} to watch nothing
     * @return this builder
     */
    public Builder ceilings(Ceilings value) {
      ceilings = Optional.of(Objects.requireNonNull(value, "ceilings"));
      return this;
    }

    /**
     * The startup limit, set in code; the other limits stay configured.
     *
     * @param value from spawn until a successful {@code initialize}; disabled waits forever
     * @return this builder
     */
    public Builder startupTimeout(Limit value) {
      return set(ServerLimits.STARTUP, Objects.requireNonNull(value, "startupTimeout"));
    }

    /**
     * The idle limit, set in code; the other limits stay configured.
     *
     * @param value how long no request may be in flight; disabled never ends an idle server
     * @return this builder
     */
    public Builder idleTimeout(Limit value) {
      return set(ServerLimits.IDLE, Objects.requireNonNull(value, "idleTimeout"));
    }

    /**
     * The wall-clock limit, set in code; the other limits stay configured.
     *
     * @param value the server's whole lifetime from spawn; disabled lets it live until closed
     * @return this builder
     */
    public Builder wallClockLimit(Limit value) {
      return set(ServerLimits.WALL_CLOCK, Objects.requireNonNull(value, "wallClockLimit"));
    }

    /**
     * The server's working directory; default this JVM's.
     *
     * @param value the directory the server starts in
     * @return this builder
     */
    public Builder directory(Path value) {
      directory = Optional.of(value);
      return this;
    }

    /**
     * The tether the tree is bound to; default {@link Tether#shared()}, started on connect.
     *
     * @param value the tether; the server's tree dies when the tether's owner dies
     * @return this builder
     * @throws NullPointerException if {@code value} is {@code null}
     */
    public Builder tether(Tether value) {
      Objects.requireNonNull(value, "tether");
      tether = () -> value;
      return this;
    }

    /**
     * The platform that spawns and signals the server's tree; default {@link
     * ProcessPlatform#get()}.
     *
     * @param value the platform
     * @return this builder
     */
    public Builder platform(ProcessPlatform value) {
      platform = Objects.requireNonNull(value, "platform");
      return this;
    }

    /**
     * The longest line accepted from the server; default {@link #DEFAULT_MAX_LINE_BYTES}.
     *
     * @param value the limit in bytes; a longer line ends the server as a protocol error
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is not positive
     */
    public Builder maxLineBytes(int value) {
      if (value <= 0) {
        throw new IllegalArgumentException("maxLineBytes must be positive: " + value);
      }
      maxLineBytes = value;
      return this;
    }

    /**
     * Where stderr lines go; default logged at INFO.
     *
     * @param value called with each stderr line, on the transport's stderr reader thread
     * @return this builder
     */
    public Builder stderrHandler(Consumer<String> value) {
      stderrHandler = Objects.requireNonNull(value, "stderrHandler");
      return this;
    }

    private <T> Builder set(Setting<T> setting, T value) {
      inCode.set(setting, value);
      return this;
    }

    /**
     * Builds the transport; nothing is started until {@code connect}.
     *
     * @return a new, unconnected transport
     */
    public SupervisedStdioClientTransport build() {
      return new SupervisedStdioClientTransport(this);
    }
  }
}
