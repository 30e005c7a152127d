package dev.lifecycle.mcp;

import dev.lifecycle.internal.Lifecycle;
import dev.lifecycle.internal.Threads;
import dev.lifecycle.tree.ProcessTree;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpTransportException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one shutdown of a running server, once its reason is decided (its limits are cancelled): fail
 * the requests in flight, tell the client why, run the {@link Ladder}, release the tree from the
 * tether and complete the report.
 */
record Stopper(
    Running running,
    ShutdownLadder ladder,
    ShutdownReason reason,
    String why,
    List<InFlight.Request> pending,
    Lifecycle<?, StdioShutdownReport> life)
    implements Runnable {
  // Under the transport's name, where users configure its logging.
  private static final Logger LOG = LoggerFactory.getLogger(SupervisedStdioClientTransport.class);
  private static final Duration STDERR_DRAIN = Duration.ofMillis(300);
  private static final Duration LEADER_EXIT_WAIT = Duration.ofMillis(250);

  /** Runs the shutdown on a thread of its own; it completes {@link #life}'s report. */
  void start() {
    // Not a daemon: an escalation under way must finish even if the JVM is exiting.
    Threads.startKeepingJvm("lifecycle-mcp-shutdown-" + running.pid(), this);
  }

  @Override
  public void run() {
    try {
      if (reason == ShutdownReason.SERVER_EXITED) {
        awaitExit(running.tree); // stdout closes just before the exit: let the error carry the code
      }
      if (reason != ShutdownReason.CLOSED) {
        // so the error below carries what the server said before it went
        Running.join(running.stderr, STDERR_DRAIN);
      }
      failPending();
      if (reason != ShutdownReason.CLOSED) {
        tellClient();
      }
      Optional<String> cause = Optional.ofNullable(why).map(running.supervisor::withStderr);
      StdioShutdownReport result = Ladder.run(running.tree, ladder, reason, cause);
      running.binding.close();
      running.stdin.shutdownNow();
      life.complete(result);
    } catch (Throwable t) {
      life.fail(t);
      throw t;
    }
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

  private void failPending() {
    if (pending.isEmpty()) {
      return;
    }
    String text = running.supervisor.notRunning().getMessage();
    for (InFlight.Request request : pending) {
      running.deliver(
          JSONRPCResponse.error(
              request.id(),
              new JSONRPCResponse.JSONRPCError(
                  SupervisedStdioClientTransport.CONNECTION_CLOSED,
                  "request '" + request.method() + "' failed: " + text)));
    }
  }

  private void tellClient() {
    McpTransportException failure = running.supervisor.notRunning();
    LOG.warn("{}", failure.getMessage());
    try {
      running.supervisor.exceptionHandler().accept(failure);
    } catch (RuntimeException e) {
      LOG.warn("the exception handler of MCP server {} failed", running.pid(), e);
    }
  }
}
