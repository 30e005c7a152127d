package dev.lifecycle.mcp;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.lifecycle.internal.Threads;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpTransportException;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import reactor.core.publisher.Mono;

/**
 * Writes messages to the server's stdin, one line each, in call order, on one thread of its own. A
 * write that fails means the server is gone (or going): the server is stopped, which fails the
 * request with an error answer that says why.
 */
final class StdinWriter {
  // A broken stdin says less than an exit: the server may still run and hold its stdout open.
  private static final Duration STDOUT_DRAIN_AFTER_WRITE_FAILURE = Duration.ofMillis(500);

  private final Running running;
  private final McpJsonMapper mapper;
  private final ExecutorService thread; // one writer keeps messages in order

  StdinWriter(Running running, McpJsonMapper mapper, long pid) {
    this.running = running;
    this.mapper = mapper;
    this.thread = Executors.newSingleThreadExecutor(Threads.daemons("lifecycle-mcp-stdin-" + pid));
  }

  /**
   * Registers {@code message} as in flight and queues it. Called with the transport's lock held,
   * while it runs: a shutdown drains every request registered before it, and none can follow.
   */
  Mono<Void> write(JSONRPCMessage message) {
    Object requestId = null;
    if (message instanceof JSONRPCRequest request) {
      requestId = request.id();
      running.inFlight.sent(request.id(), request.method());
    } else if (message instanceof JSONRPCResponse response) {
      running.inFlight.replied(response.id());
    }
    byte[] bytes;
    try {
      bytes = (oneLine(mapper.writeValueAsString(message)) + "\n").getBytes(UTF_8);
    } catch (IOException e) {
      if (requestId != null) {
        running.inFlight.answered(requestId);
      }
      return Mono.error(new McpTransportException("cannot serialize " + message, e));
    }
    Object id = requestId;
    CompletableFuture<Void> written = new CompletableFuture<>();
    OutputStream stdin = running.tree.leader().getOutputStream();
    try {
      thread.execute(
          () -> {
            try {
              stdin.write(bytes);
              stdin.flush();
              written.complete(null);
            } catch (IOException e) {
              fail(written, id, e);
            }
          });
    } catch (RejectedExecutionException e) {
      fail(written, id, e);
    }
    return Mono.fromFuture(written);
  }

  /** Ends the writer thread; writes still queued do not run. */
  void shutdownNow() {
    thread.shutdownNow();
  }

  private void fail(CompletableFuture<Void> written, Object requestId, Exception e) {
    running.serverGone(
        "writing to the server's stdin failed: " + e, e, STDOUT_DRAIN_AFTER_WRITE_FAILURE);
    if (requestId != null) {
      written.complete(null); // the request fails through its error answer, which says why
      return;
    }
    McpTransportException failure = running.supervisor.notRunning();
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
}
