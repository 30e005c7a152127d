package dev.lifecycle.mcp;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.lifecycle.internal.Durations;
import dev.lifecycle.internal.Threads;
import dev.lifecycle.mcp.StdioShutdownReport.Step;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.time.Guards;
import dev.lifecycle.time.IdleTracker;
import dev.lifecycle.time.Limit;
import dev.lifecycle.time.TimerHandle;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeOptions;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpTransportException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * <p>Tested on Linux with the JNA platform ({@code lifecycle-posix}) against real servers run
 * through {@code npx}. On macOS the same code runs with the platform's weaker, untested guarantees
 * (see the tether's and the tree's documentation); Windows is not supported.
 */
public final class SupervisedStdioClientTransport implements McpClientTransport {
  /** The SDK's default bound on one line from the server: 16 MiB. */
  public static final int DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

  /**
   * The JSON-RPC error code of requests failed because the server went away (the implementation
   * defined server-error range; the TypeScript SDK's {@code ConnectionClosed}).
   */
  public static final int CONNECTION_CLOSED = -32000;

  private static final Logger LOG = LoggerFactory.getLogger(SupervisedStdioClientTransport.class);
  private static final Duration STDERR_DRAIN = Duration.ofMillis(300);
  // After the leader exited its stdout reaches EOF once the buffered output is read (the pipe is
  // drained and closed at exit, as the JDK does), so this bound is only a safety net.
  private static final Duration STDOUT_DRAIN_AFTER_EXIT = Duration.ofSeconds(5);
  // A broken stdin says less: the server may still run and hold its stdout open.
  private static final Duration STDOUT_DRAIN_AFTER_WRITE_FAILURE = Duration.ofMillis(500);
  private static final Duration LEADER_EXIT_WAIT = Duration.ofMillis(250);
  private static final int EXCERPT = 200;

  private enum State {
    NEW,
    RUNNING,
    STOPPING
  }

  private final ServerParameters params;
  private final McpJsonMapper mapper;
  private final ShutdownLadder ladder;
  private final ServerLimits limits;
  private final Optional<Path> directory;
  private final Supplier<Tether> tether;
  private final ProcessPlatform platform;
  private final int maxLineBytes;
  private final StderrTail stderrTail = new StderrTail();
  private final CompletableFuture<StdioShutdownReport> report = new CompletableFuture<>();

  private final Object lock = new Object();
  private State state = State.NEW; // guarded by lock
  private ShutdownReason stopReason; // guarded by lock, set once with STOPPING
  private String stopWhy; // guarded by lock
  private Throwable stopCause; // guarded by lock
  // Messages sent before connect finished (the SDK sends initialize right after subscribing to
  // connect), written in order once the server runs. Guarded by lock.
  private final List<Early> early = new ArrayList<>();

  private record Early(JSONRPCMessage message, CompletableFuture<Void> written) {}

  // Set once by connect, read after it (under lock or after the state was seen RUNNING).
  private volatile ProcessTree tree;
  private volatile Tether.Binding binding;
  private volatile Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler;
  private volatile ExecutorService writer;
  private volatile Thread stderrReader;
  private volatile Thread stdoutReader;
  private volatile TimerHandle startupGuard = TimerHandle.NONE;
  private volatile TimerHandle wallClockGuard = TimerHandle.NONE;
  private volatile IdleTracker idle;
  private volatile IdleTracker.Lease startupLease;
  private volatile InFlight inFlight;
  private volatile Object initializeId;
  private volatile boolean sawMessage;

  private volatile Consumer<String> stderrHandler;
  private volatile Consumer<Throwable> exceptionHandler = t -> {};

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
    this.params = builder.params;
    this.mapper = builder.mapper != null ? builder.mapper : McpJsonDefaults.getMapper();
    this.ladder =
        ShutdownLadder.resolve(
            builder.stdinWait,
            builder.termGrace,
            builder.killVerify,
            System::getProperty,
            System::getenv);
    this.limits =
        ServerLimits.resolve(
            builder.startup, builder.idle, builder.wallClock, System::getProperty, System::getenv);
    this.directory = builder.directory;
    this.tether = builder.tether;
    this.platform = builder.platform != null ? builder.platform : ProcessPlatform.get();
    this.maxLineBytes = builder.maxLineBytes;
    this.stderrHandler = builder.stderrHandler;
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
    return Mono.<Void>fromRunnable(() -> start(handler)).subscribeOn(Schedulers.boundedElastic());
  }

  private void start(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    synchronized (lock) {
      if (state != State.NEW) {
        throw new McpTransportException(
            state == State.RUNNING
                ? "this transport is connected already (one server per transport)"
                : "this transport was shut down: " + stoppedText(),
            stopCause);
      }
      this.handler = handler;
      List<String> command = new ArrayList<>();
      command.add(params.getCommand());
      command.addAll(params.getArgs());
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().putAll(params.getEnv());
      directory.ifPresent(d -> builder.directory(d.toFile()));
      ProcessTree spawned;
      Tether.BoundTree bound;
      try {
        // Bound before the leader starts: a JVM killed at any moment of the spawn orphans nothing.
        bound = tether.get().spawn(platform, builder, treeOptions(ladder));
        spawned = bound.tree();
      } catch (IOException | RuntimeException e) {
        state = State.STOPPING;
        stopReason = ShutdownReason.CONNECT_FAILED;
        stopWhy = "cannot start MCP server " + command + ": " + e.getMessage();
        stopCause = e;
        failEarly();
        report.complete(
            new StdioShutdownReport(
                ShutdownReason.CONNECT_FAILED,
                Step.NEVER_STARTED,
                Optional.of(stopWhy),
                OptionalInt.empty(),
                Optional.empty(),
                Duration.ZERO));
        throw new McpTransportException(stopWhy, e);
      }
      tree = spawned;
      IdleTracker tracker =
          IdleTracker.builder()
              .timeout(limits.idle())
              .onIdle(
                  () ->
                      stop(
                          ShutdownReason.IDLE_TIMEOUT,
                          "no request in flight for " + limits.idle(),
                          null))
              .build();
      idle = tracker;
      startupLease = tracker.acquire(); // idleness counts from a successful initialize
      inFlight = new InFlight(tracker);
      state = State.RUNNING;
      long pid = spawned.leader().pid();
      writer =
          Executors.newSingleThreadExecutor(
              Threads.daemons("lifecycle-mcp-stdin-" + pid)); // one writer keeps messages in order
      binding = bound.binding();
      startupGuard =
          Guards.arm(
              limits.startup(),
              () ->
                  stop(
                      ShutdownReason.STARTUP_TIMEOUT,
                      "no successful answer to initialize within " + limits.startup(),
                      null));
      wallClockGuard =
          Guards.arm(
              limits.wallClock(),
              () ->
                  stop(
                      ShutdownReason.WALL_CLOCK,
                      "the server ran for its wall-clock limit of " + limits.wallClock(),
                      null));
      Thread output =
          Threads.daemon(
              "lifecycle-mcp-stdout-" + pid, () -> readStdout(spawned.leader().getInputStream()));
      stdoutReader = output;
      output.start();
      Thread errors =
          Threads.daemon(
              "lifecycle-mcp-stderr-" + pid, () -> readStderr(spawned.leader().getErrorStream()));
      stderrReader = errors;
      errors.start();
      // On a thread of its own: serverGone waits for the stdout reader, and the library's exit
      // notification must not be held up.
      spawned
          .leader()
          .onExit()
          .thenRun(
              () ->
                  Threads.startDaemon(
                      "lifecycle-mcp-exit-" + pid,
                      () -> serverGone("the server exited", null, STDOUT_DRAIN_AFTER_EXIT)));
      if (state != State.RUNNING) { // the server exited already: nothing can be written
        failEarly();
      }
      for (Early message : early) {
        Mono.defer(() -> write(message.message()))
            .subscribe(
                ignored -> {},
                message.written()::completeExceptionally,
                () -> message.written().complete(null));
      }
      early.clear();
      LOG.info("MCP server started: {} as {}", command, spawned);
    }
  }

  static TreeOptions treeOptions(ShutdownLadder ladder) {
    Duration grace = ladder.termGrace();
    Duration escapeeGrace =
        grace.compareTo(TreeOptions.DEFAULT_ESCAPEE_GRACE) < 0
            ? grace
            : TreeOptions.DEFAULT_ESCAPEE_GRACE;
    return TreeOptions.defaults()
        .withGrace(grace)
        .withEscapeeGrace(escapeeGrace)
        .withVerifyTimeout(ladder.killVerify());
  }

  private void readStdout(InputStream stdout) {
    LineReader lines = new LineReader(stdout, maxLineBytes);
    try {
      for (Optional<String> line = lines.next(); line.isPresent(); line = lines.next()) {
        onLine(line.get());
      }
      stop(ShutdownReason.SERVER_EXITED, "the server closed its stdout", null);
    } catch (LineReader.LineTooLongException e) {
      stop(ShutdownReason.PROTOCOL_ERROR, e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      stop(ShutdownReason.SERVER_EXITED, "reading the server's stdout failed: " + e, e);
    }
  }

  private void readStderr(InputStream stderr) {
    LineReader lines = new LineReader(stderr, maxLineBytes);
    try {
      for (Optional<String> line = lines.next(); line.isPresent(); line = lines.next()) {
        stderrTail.add(line.get());
        Consumer<String> target = stderrHandler;
        try {
          target.accept(line.get());
        } catch (RuntimeException e) {
          LOG.warn("the stderr handler of MCP server {} failed", pidText(), e);
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("reading the stderr of MCP server {} ended", pidText(), e);
    }
  }

  private void onLine(String line) {
    if (line.isBlank()) {
      return;
    }
    JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(mapper, line);
    } catch (IOException | RuntimeException e) {
      if (!sawMessage) {
        stop(
            ShutdownReason.CONNECT_FAILED,
            "the server's first message is not JSON-RPC: " + excerpt(line),
            e);
      } else {
        LOG.warn(
            "MCP server {}: skipping a line that is not JSON-RPC: {}", pidText(), excerpt(line));
      }
      return;
    }
    sawMessage = true;
    boolean initializeAnswer = false;
    if (message instanceof JSONRPCResponse response) {
      inFlight.answered(response.id());
      Object init = initializeId;
      initializeAnswer = init != null && sameId(init, response.id());
    } else if (message instanceof JSONRPCRequest request) {
      inFlight.received(request.id());
    }
    if (isRunning()) {
      deliver(message);
    }
    if (initializeAnswer) {
      JSONRPCResponse response = (JSONRPCResponse) message;
      if (response.error() == null) {
        startupGuard.cancel();
        startupLease.close();
      } else {
        stop(
            ShutdownReason.CONNECT_FAILED,
            "initialize failed: " + response.error().code() + " " + response.error().message(),
            null);
      }
    }
  }

  private void deliver(JSONRPCMessage message) {
    try {
      handler
          .apply(Mono.just(message))
          .subscribe(
              ignored -> {},
              e -> LOG.warn("MCP client failed to handle a message from {}", pidText(), e));
    } catch (RuntimeException e) {
      LOG.warn("MCP client failed to handle a message from {}", pidText(), e);
    }
  }

  /**
   * Writes {@code message} as one line to the server's stdin, in call order. The returned {@code
   * Mono} completes once it is written and fails when it cannot be (the server is gone, or the
   * transport was shut down: the error says why).
   */
  @Override
  public Mono<Void> sendMessage(JSONRPCMessage message) {
    Objects.requireNonNull(message, "message");
    synchronized (lock) {
      if (state == State.NEW) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        early.add(new Early(message, written));
        return Mono.fromFuture(written);
      }
      if (state != State.RUNNING) {
        return Mono.error(notRunning());
      }
      // Registered under the lock: a shutdown drains (and fails) every request registered before
      // it, and none can be registered after it.
      return write(message);
    }
  }

  // Called with the lock held, while RUNNING.
  private Mono<Void> write(JSONRPCMessage message) {
    Object requestId = null;
    if (message instanceof JSONRPCRequest request) {
      requestId = request.id();
      if (McpSchema.METHOD_INITIALIZE.equals(request.method())) {
        initializeId = request.id();
      }
      inFlight.sent(request.id(), request.method());
    } else if (message instanceof JSONRPCResponse response) {
      inFlight.replied(response.id());
    }
    byte[] bytes;
    try {
      bytes = (oneLine(mapper.writeValueAsString(message)) + "\n").getBytes(UTF_8);
    } catch (IOException e) {
      if (requestId != null) {
        inFlight.answered(requestId);
      }
      return Mono.error(new McpTransportException("cannot serialize " + message, e));
    }
    Object id = requestId;
    CompletableFuture<Void> written = new CompletableFuture<>();
    OutputStream stdin = tree.leader().getOutputStream();
    try {
      writer.execute(
          () -> {
            try {
              stdin.write(bytes);
              stdin.flush();
              written.complete(null);
            } catch (IOException e) {
              failWrite(written, id, e);
            }
          });
    } catch (RejectedExecutionException e) {
      failWrite(written, id, e);
    }
    return Mono.fromFuture(written);
  }

  private void failWrite(CompletableFuture<Void> written, Object requestId, Exception e) {
    // A server we cannot write to is gone (or going): shut it down, which drains the request.
    serverGone("writing to the server's stdin failed: " + e, e, STDOUT_DRAIN_AFTER_WRITE_FAILURE);
    if (requestId != null) {
      written.complete(null); // the request fails through its error answer, which says why
      return;
    }
    McpTransportException failure = notRunning();
    failure.addSuppressed(e);
    written.completeExceptionally(failure);
  }

  // JSON never needs a raw line break (string contents are escaped): between tokens a space is
  // equivalent, so a pretty-printing mapper cannot split one message over lines.
  private static String oneLine(String json) {
    return json.indexOf('\n') < 0 && json.indexOf('\r') < 0
        ? json
        : json.replace('\r', ' ').replace('\n', ' ');
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
    return stop(ShutdownReason.CLOSED, null, null);
  }

  /**
   * Completes with the report once the server was shut down, for whatever reason.
   *
   * @return a new future per call; completing or cancelling it does not affect the transport
   */
  public CompletableFuture<StdioShutdownReport> onShutdown() {
    return report.copy();
  }

  /**
   * The server's tree, once started.
   *
   * @return the tree, or empty before {@code connect} started the server (or when it could not
   *     start)
   */
  public Optional<ProcessTree> processTree() {
    return Optional.ofNullable(tree);
  }

  /**
   * The parameters this transport starts its server with.
   *
   * @return the command, arguments and environment given to the builder
   */
  public ServerParameters serverParameters() {
    return params;
  }

  /**
   * The ladder in effect.
   *
   * @return each step as set on the builder, else configured, else its default
   */
  public ShutdownLadder shutdownLadder() {
    return ladder;
  }

  /**
   * The limits in effect.
   *
   * @return each limit as set on the builder, else configured, else its default
   */
  public ServerLimits limits() {
    return limits;
  }

  /**
   * Whether the server was started and no shutdown has begun.
   *
   * @return {@code false} before {@code connect} and from the start of any shutdown on
   */
  public boolean isRunning() {
    synchronized (lock) {
      return state == State.RUNNING;
    }
  }

  /**
   * Requests in flight now, in both directions (diagnostics).
   *
   * @return requests sent and not yet answered plus requests received and not yet answered; {@code
   *     0} before the server started
   */
  public int requestsInFlight() {
    InFlight current = inFlight;
    return current == null ? 0 : current.size();
  }

  /**
   * Where the server's stderr lines go; by default they are logged at INFO.
   *
   * @param handler called with each stderr line, on the transport's stderr reader thread
   * @throws NullPointerException if {@code handler} is {@code null}
   */
  public void setStdErrorHandler(Consumer<String> handler) {
    this.stderrHandler = Objects.requireNonNull(handler, "handler");
  }

  /** Called with the error when the server goes away or a limit ends it (not on a close). */
  @Override
  public void setExceptionHandler(Consumer<Throwable> handler) {
    this.exceptionHandler = Objects.requireNonNull(handler, "handler");
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return mapper.convertValue(data, typeRef);
  }

  private CompletableFuture<StdioShutdownReport> stop(
      ShutdownReason reason, String why, Throwable cause) {
    ProcessTree stopping;
    List<InFlight.Request> pending;
    synchronized (lock) {
      if (state == State.STOPPING) {
        return report.copy();
      }
      State was = state;
      state = State.STOPPING;
      stopReason = reason;
      stopWhy = why;
      stopCause = cause;
      if (was == State.NEW) {
        failEarly();
        report.complete(
            new StdioShutdownReport(
                reason,
                Step.NEVER_STARTED,
                Optional.ofNullable(why),
                OptionalInt.empty(),
                Optional.empty(),
                Duration.ZERO));
        return report.copy();
      }
      stopping = tree;
      pending = inFlight.drainOutgoing();
    }
    // Not a daemon: an escalation under way must finish even if the JVM is exiting.
    Threads.startKeepingJvm(
        "lifecycle-mcp-shutdown-" + stopping.leader().pid(),
        () -> shutdownNow(stopping, reason, why, pending));
    return report.copy();
  }

  private void shutdownNow(
      ProcessTree stopping, ShutdownReason reason, String why, List<InFlight.Request> pending) {
    try {
      startupGuard.cancel();
      wallClockGuard.cancel();
      idle.close();
      if (reason == ShutdownReason.SERVER_EXITED) {
        awaitExit(stopping); // stdout closes just before the exit: let the error carry the code
      }
      if (reason != ShutdownReason.CLOSED) {
        awaitStderr(); // so the error below carries what the server said before it went
      }
      failPending(pending);
      if (reason != ShutdownReason.CLOSED) {
        McpTransportException failure = notRunning();
        LOG.warn("{}", failure.getMessage());
        try {
          exceptionHandler.accept(failure);
        } catch (RuntimeException e) {
          LOG.warn("the exception handler of MCP server {} failed", pidText(), e);
        }
      }
      StdioShutdownReport result =
          Ladder.run(stopping, ladder, reason, Optional.ofNullable(why).map(this::withStderr));
      Tether.Binding bound = binding;
      if (bound != null) {
        bound.close();
      }
      writer.shutdownNow();
      report.complete(result);
    } catch (Throwable t) {
      report.completeExceptionally(t);
      throw t;
    }
  }

  // Called with the lock held, once the transport stopped before it ran.
  private void failEarly() {
    for (Early message : early) {
      message.written().completeExceptionally(new McpTransportException(stoppedText(), stopCause));
    }
    early.clear();
  }

  private static void awaitExit(ProcessTree stopping) {
    try {
      stopping.leader().onExit().get(LEADER_EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // still running (or unknown): the ladder deals with it, the message just has no exit code
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The server is gone (its leader exited, or its stdin broke). What it wrote before says more than
   * that: the stdout reader first reads what is left (bounded by {@code drain}), so a first line
   * that is not JSON-RPC (a usage text, an error) names the failure instead of the exit.
   */
  private void serverGone(String why, Throwable cause, Duration drain) {
    Thread output = stdoutReader;
    if (output != null && output != Thread.currentThread()) {
      join(output, drain);
    }
    stop(ShutdownReason.SERVER_EXITED, why, cause);
  }

  private void awaitStderr() {
    Thread errors = stderrReader;
    if (errors != null) {
      join(errors, STDERR_DRAIN);
    }
  }

  private static void join(Thread thread, Duration bound) {
    try {
      thread.join(bound.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void failPending(List<InFlight.Request> pending) {
    if (pending.isEmpty()) {
      return;
    }
    String text = notRunning().getMessage();
    for (InFlight.Request request : pending) {
      deliver(
          JSONRPCResponse.error(
              request.id(),
              new JSONRPCResponse.JSONRPCError(
                  CONNECTION_CLOSED, "request '" + request.method() + "' failed: " + text)));
    }
  }

  private McpTransportException notRunning() {
    synchronized (lock) {
      return new McpTransportException(stoppedText(), stopCause);
    }
  }

  // Called with the lock held.
  private String stoppedText() {
    if (state == State.NEW) {
      return "MCP server not started: connect first";
    }
    StringBuilder out = new StringBuilder("MCP server ").append(params.getCommand());
    if (!params.getArgs().isEmpty()) {
      out.append(' ').append(String.join(" ", params.getArgs()));
    }
    ProcessTree current = tree;
    if (current != null) {
      out.append(" (pid ").append(current.leader().pid()).append(')');
    }
    out.append(": ");
    if (stopReason == ShutdownReason.CLOSED || stopReason == null) {
      return out.append("the transport was closed").toString();
    }
    out.append(stopReason).append(", ").append(stopWhy);
    if (current != null && !current.leader().isAlive()) {
      try {
        out.append(" (exit code ").append(current.leader().exitValue()).append(')');
      } catch (IllegalThreadStateException e) {
        // exited but not yet known: nothing to add
      }
    }
    return withStderr(out.toString());
  }

  private String withStderr(String text) {
    String tail = stderrTail.text();
    return tail.isEmpty() ? text : text + "; stderr: " + tail;
  }

  private String pidText() {
    ProcessTree current = tree;
    return current == null ? "(not started)" : Long.toString(current.leader().pid());
  }

  private static boolean sameId(Object a, Object b) {
    return Objects.equals(a, b)
        || (a instanceof Number && b instanceof Number && a.toString().equals(b.toString()));
  }

  private static String excerpt(String line) {
    return line.length() <= EXCERPT ? line : line.substring(0, EXCERPT) + "...";
  }

  @Override
  public String toString() {
    return "SupervisedStdioClientTransport[" + params.getCommand() + ", " + tree + "]";
  }

  /** Builds a {@link SupervisedStdioClientTransport}. Not thread-safe. */
  public static final class Builder {
    private final ServerParameters params;
    private McpJsonMapper mapper;
    // Set in code or empty; empty ones come from configuration, else their defaults.
    private Optional<Duration> stdinWait = Optional.empty();
    private Optional<Duration> termGrace = Optional.empty();
    private Optional<Duration> killVerify = Optional.empty();
    private Optional<Limit> startup = Optional.empty();
    private Optional<Limit> idle = Optional.empty();
    private Optional<Limit> wallClock = Optional.empty();
    private Optional<Path> directory = Optional.empty();
    private Supplier<Tether> tether = Tether::shared;
    private ProcessPlatform platform;
    private int maxLineBytes = DEFAULT_MAX_LINE_BYTES;
    private Consumer<String> stderrHandler =
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
      Objects.requireNonNull(value, "ladder");
      stdinWait = Optional.of(value.stdinWait());
      termGrace = Optional.of(value.termGrace());
      killVerify = Optional.of(value.killVerify());
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
      stdinWait = Optional.of(Durations.nonNegative(value, "stdinWait"));
      return this;
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
      termGrace = Optional.of(Durations.nonNegative(value, "termGrace"));
      return this;
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
      killVerify = Optional.of(Durations.nonNegative(value, "killVerify"));
      return this;
    }

    /**
     * All three of the server's limits, set in code: configuration no longer changes them. Without
     * this call each limit is configured ({@link ServerLimits}) or its default.
     *
     * @param value the limits
     * @return this builder
     */
    public Builder limits(ServerLimits value) {
      Objects.requireNonNull(value, "limits");
      startup = Optional.of(value.startup());
      idle = Optional.of(value.idle());
      wallClock = Optional.of(value.wallClock());
      return this;
    }

    /**
     * The startup limit, set in code; the other limits stay configured.
     *
     * @param value from spawn until a successful {@code initialize}; disabled waits forever
     * @return this builder
     */
    public Builder startupTimeout(Limit value) {
      startup = Optional.of(Objects.requireNonNull(value, "startupTimeout"));
      return this;
    }

    /**
     * The idle limit, set in code; the other limits stay configured.
     *
     * @param value how long no request may be in flight; disabled never ends an idle server
     * @return this builder
     */
    public Builder idleTimeout(Limit value) {
      idle = Optional.of(Objects.requireNonNull(value, "idleTimeout"));
      return this;
    }

    /**
     * The wall-clock limit, set in code; the other limits stay configured.
     *
     * @param value the server's whole lifetime from spawn; disabled lets it live until closed
     * @return this builder
     */
    public Builder wallClockLimit(Limit value) {
      wallClock = Optional.of(Objects.requireNonNull(value, "wallClockLimit"));
      return this;
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
