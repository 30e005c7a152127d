package dev.lifecycle.mcp;

import dev.lifecycle.internal.Lifecycle;
import dev.lifecycle.mcp.StdioShutdownReport.Step;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.tree.ProcessTree;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpTransportException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The lifecycle of one transport: started at most once, stopped at most once with the first reason
 * given, one report for the one shutdown. Holds the messages sent before the server runs and
 * publishes the {@link Running} server once. Thread-safe.
 */
final class Supervisor {
  // Under the transport's name, where users configure its logging.
  private static final Logger LOG = LoggerFactory.getLogger(SupervisedStdioClientTransport.class);

  /** Why the transport stopped: the first stop's reason, its text and the error behind it. */
  private record Stop(ShutdownReason reason, String why, Throwable cause) {}

  private record Early(JSONRPCMessage message, CompletableFuture<Void> written) {}

  private final Settings settings;
  private final StderrTail stderrTail = new StderrTail();
  private final Lifecycle<Stop, StdioShutdownReport> life = new Lifecycle<>();

  private final Object lock = new Object();
  // Messages sent before connect finished (the SDK sends initialize right after subscribing to
  // connect), written in order once the server runs. Guarded by lock.
  private final List<Early> early = new ArrayList<>();
  private volatile Running running; // published once, under lock, before the state is RUNNING

  private volatile Consumer<String> stderrHandler;
  private volatile Consumer<Throwable> exceptionHandler = t -> {};

  Supervisor(Settings settings, Consumer<String> stderrHandler) {
    this.settings = settings;
    this.stderrHandler = stderrHandler;
  }

  void start(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    synchronized (lock) {
      if (!life.start()) {
        throw new McpTransportException(
            isRunning()
                ? "this transport is connected already (one server per transport)"
                : "this transport was shut down: " + stoppedText(),
            stopCause());
      }
      Tether.BoundTree bound;
      try {
        // Bound before the leader starts: a JVM killed at any moment of the spawn orphans nothing.
        bound =
            settings
                .tether()
                .get()
                .spawn(
                    settings.platform(),
                    settings.processBuilder(),
                    settings.ladder().treeOptions().withCeilings(settings.ceilings()));
      } catch (IOException | RuntimeException e) {
        String why = "cannot start MCP server " + settings.command() + ": " + e.getMessage();
        neverStarted(ShutdownReason.CONNECT_FAILED, why, e);
        throw new McpTransportException(why, e);
      }
      Running started = new Running(this, settings, bound, handler);
      running = started;
      life.guard(started.startupGuard::cancel);
      life.guard(started.wallClockGuard::cancel);
      life.guard(started.idle::close);
      started.start();
      if (!isRunning()) { // the server exited already: nothing can be written
        failEarly();
      }
      for (Early message : early) {
        Mono.defer(() -> started.stdin.write(message.message()))
            .subscribe(
                ignored -> {},
                message.written()::completeExceptionally,
                () -> message.written().complete(null));
      }
      early.clear();
      LOG.info("MCP server started: {} as {}", settings.command(), started.tree);
    }
  }

  Mono<Void> send(JSONRPCMessage message) {
    synchronized (lock) {
      if (isNew()) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        early.add(new Early(message, written));
        return Mono.fromFuture(written);
      }
      if (!isRunning()) {
        return Mono.error(notRunning());
      }
      return running.stdin.write(message);
    }
  }

  /**
   * Starts the one shutdown, with this reason unless one began before; returns a copy of its
   * report.
   */
  CompletableFuture<StdioShutdownReport> stop(ShutdownReason reason, String why, Throwable cause) {
    Running stopping;
    List<InFlight.Request> pending;
    synchronized (lock) {
      if (isNew()) {
        neverStarted(reason, why, cause);
        return life.report();
      }
      if (!life.stop(new Stop(reason, why, cause))) { // cancels the limits' guards
        return life.report();
      }
      stopping = running;
      pending = stopping.inFlight.drainOutgoing();
    }
    new Stopper(stopping, settings.ladder(), reason, why, pending, life).start();
    return life.report();
  }

  // Called with the lock held: the transport stops before its server ran.
  private void neverStarted(ShutdownReason reason, String why, Throwable cause) {
    life.stop(new Stop(reason, why, cause));
    failEarly();
    life.complete(
        new StdioShutdownReport(
            reason,
            Step.NEVER_STARTED,
            Optional.ofNullable(why),
            OptionalInt.empty(),
            Optional.empty(),
            Duration.ZERO));
  }

  // Called with the lock held, once the transport stopped before it ran.
  private void failEarly() {
    for (Early message : early) {
      message
          .written()
          .completeExceptionally(new McpTransportException(stoppedText(), stopCause()));
    }
    early.clear();
  }

  CompletableFuture<StdioShutdownReport> onShutdown() {
    return life.report();
  }

  boolean isRunning() {
    return life.isStarted() && life.reason().isEmpty();
  }

  private boolean isNew() {
    return !life.isStarted() && life.reason().isEmpty();
  }

  private Throwable stopCause() {
    return life.reason().map(Stop::cause).orElse(null);
  }

  /** The server, once connect started it; empty before (or when it could not start). */
  Optional<Running> running() {
    return Optional.ofNullable(running);
  }

  McpTransportException notRunning() {
    synchronized (lock) {
      return new McpTransportException(stoppedText(), stopCause());
    }
  }

  // Called with the lock held.
  private String stoppedText() {
    if (isNew()) {
      return "MCP server not started: connect first";
    }
    ServerParameters params = settings.params();
    StringBuilder out = new StringBuilder("MCP server ").append(params.getCommand());
    if (!params.getArgs().isEmpty()) {
      out.append(' ').append(String.join(" ", params.getArgs()));
    }
    ProcessTree current = running == null ? null : running.tree;
    if (current != null) {
      out.append(" (pid ").append(current.leader().pid()).append(')');
    }
    out.append(": ");
    Stop stop = life.reason().orElse(null);
    if (stop == null || stop.reason() == ShutdownReason.CLOSED) {
      return out.append("the transport was closed").toString();
    }
    out.append(stop.reason()).append(", ").append(stop.why());
    if (current != null && !current.leader().isAlive()) {
      try {
        out.append(" (exit code ").append(current.leader().exitValue()).append(')');
      } catch (IllegalThreadStateException e) {
        // exited but not yet known: nothing to add
      }
    }
    return withStderr(out.toString());
  }

  String withStderr(String text) {
    String tail = stderrTail.text();
    return tail.isEmpty() ? text : text + "; stderr: " + tail;
  }

  StderrTail stderrTail() {
    return stderrTail;
  }

  Consumer<String> stderrHandler() {
    return stderrHandler;
  }

  void stderrHandler(Consumer<String> handler) {
    stderrHandler = handler;
  }

  Consumer<Throwable> exceptionHandler() {
    return exceptionHandler;
  }

  void exceptionHandler(Consumer<Throwable> handler) {
    exceptionHandler = handler;
  }
}
