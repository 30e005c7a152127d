package dev.lifecycle.mcp;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.time.Guards;
import dev.lifecycle.time.IdleTracker;
import dev.lifecycle.time.Limit;
import dev.lifecycle.time.TimerHandle;
import dev.lifecycle.tree.ProcessTree;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import java.time.Duration;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * One started server and what serves it: its tree bound to the tether, the stdin writer, the stdout
 * reader, the stderr pump, the limits' guards and the requests in flight. Built once by connect,
 * under the transport's lock, and published whole; immutable after.
 */
final class Running {
  // Under the transport's name, where users configure its logging.
  private static final Logger LOG = LoggerFactory.getLogger(SupervisedStdioClientTransport.class);
  // After the leader exited its stdout reaches EOF once the buffered output is read (the pipe is
  // drained and closed at exit, as the JDK does), so this bound is only a safety net.
  private static final Duration STDOUT_DRAIN_AFTER_EXIT = Duration.ofSeconds(5);

  final Supervisor supervisor;
  final ProcessTree tree;
  final Tether.Binding binding;
  final IdleTracker idle;
  final IdleTracker.Lease startupLease; // idleness counts from a successful initialize
  final InFlight inFlight;
  final TimerHandle startupGuard;
  final TimerHandle wallClockGuard;
  final StdinWriter stdin;
  final Thread stdout;
  final Thread stderr;
  private final Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler;

  /** Arms the limits and builds the threads; {@link #start} starts them. */
  Running(
      Supervisor supervisor,
      Settings settings,
      Tether.BoundTree bound,
      Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    this.supervisor = supervisor;
    this.tree = bound.tree();
    this.binding = bound.binding();
    this.handler = handler;
    ServerLimits limits = settings.limits();
    this.idle =
        IdleTracker.builder()
            .timeout(limits.idle())
            .onIdle(
                () ->
                    supervisor.stop(
                        ShutdownReason.IDLE_TIMEOUT,
                        "no request in flight for " + limits.idle(),
                        null))
            .build();
    this.startupLease = idle.acquire();
    this.inFlight = new InFlight(idle);
    long pid = pid();
    this.stdin = new StdinWriter(this, settings.mapper(), pid);
    this.startupGuard =
        stopOnExpiry(
            supervisor,
            limits.startup(),
            ShutdownReason.STARTUP_TIMEOUT,
            "no successful answer to initialize within ");
    this.wallClockGuard =
        stopOnExpiry(
            supervisor,
            limits.wallClock(),
            ShutdownReason.WALL_CLOCK,
            "the server ran for its wall-clock limit of ");
    this.stdout =
        Threads.daemon(
            "lifecycle-mcp-stdout-" + pid,
            new StdoutReader(this, settings.mapper(), settings.maxLineBytes()));
    this.stderr =
        Threads.daemon(
            "lifecycle-mcp-stderr-" + pid,
            new StderrPump(
                tree.leader().getErrorStream(),
                settings.maxLineBytes(),
                supervisor.stderrTail(),
                supervisor::stderrHandler,
                pid));
  }

  /** Once {@code limit} elapses, stops the server for {@code reason}, saying why and the limit. */
  private static TimerHandle stopOnExpiry(
      Supervisor supervisor, Limit limit, ShutdownReason reason, String why) {
    return Guards.arm(limit, () -> supervisor.stop(reason, why + limit, null));
  }

  /** Starts reading the server's output and watching its exit. */
  void start() {
    stdout.start();
    stderr.start();
    // On a thread of its own: serverGone waits for the stdout reader, and the library's exit
    // notification must not be held up.
    tree.leader()
        .onExit()
        .thenRun(
            () ->
                Threads.startDaemon(
                    "lifecycle-mcp-exit-" + pid(),
                    () -> serverGone("the server exited", null, STDOUT_DRAIN_AFTER_EXIT)));
  }

  long pid() {
    return tree.leader().pid();
  }

  /** Hands {@code message} to the client; a client that fails on it is logged, not propagated. */
  void deliver(JSONRPCMessage message) {
    try {
      handler
          .apply(Mono.just(message))
          .subscribe(
              ignored -> {},
              e -> LOG.warn("MCP client failed to handle a message from {}", pid(), e));
    } catch (RuntimeException e) {
      LOG.warn("MCP client failed to handle a message from {}", pid(), e);
    }
  }

  /**
   * The server is gone (its leader exited, or its stdin broke). What it wrote before says more than
   * that: the stdout reader first reads what is left (bounded by {@code drain}), so a first line
   * that is not JSON-RPC (a usage text, an error) names the failure instead of the exit.
   */
  void serverGone(String why, Throwable cause, Duration drain) {
    if (stdout != Thread.currentThread()) {
      join(stdout, drain);
    }
    supervisor.stop(ShutdownReason.SERVER_EXITED, why, cause);
  }

  static void join(Thread thread, Duration bound) {
    try {
      thread.join(bound.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
