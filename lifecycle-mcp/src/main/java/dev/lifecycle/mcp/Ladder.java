package dev.lifecycle.mcp;

import dev.lifecycle.mcp.StdioShutdownReport.Step;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link ShutdownLadder} on one server tree, blocking the calling thread for at most the
 * ladder's {@link ShutdownLadder#worstCase()} plus a few scans. The SIGTERM-to-verify part is the
 * tree's own staged termination (group signals, escapee sweep, reaping the leader), so the ladder
 * covers the whole tree, not only the process it spawned.
 */
final class Ladder {
  private static final Logger LOG = LoggerFactory.getLogger(Ladder.class);

  private Ladder() {}

  static StdioShutdownReport run(
      ProcessTree tree, ShutdownLadder steps, ShutdownReason reason, Optional<String> cause) {
    long start = System.nanoTime();
    CompletableFuture<ProcessTree> exit = tree.onExit();
    boolean goneBefore = exit.isDone() || (!tree.leader().isAlive() && tree.view().isEmpty());
    closeStdin(tree);
    boolean goneAfterEof = goneBefore || await(exit, steps.stdinWait());
    // Also when the tree is gone: terminate verifies, sweeps escapees and reaps the held leader.
    TerminationReport report = tree.terminate(steps.termGrace());
    Step step;
    if (goneBefore) {
      step = Step.ALREADY_GONE;
    } else if (goneAfterEof) {
      step = Step.STDIN_EOF;
    } else {
      step =
          switch (report.endedBy()) {
            case ALREADY_GONE -> Step.STDIN_EOF; // exited between the wait and the first scan
            case TERM -> Step.TERM;
            case KILL -> Step.KILL;
          };
    }
    StdioShutdownReport result =
        new StdioShutdownReport(
            reason,
            step,
            cause,
            exitCode(tree),
            Optional.of(report),
            Duration.ofNanos(System.nanoTime() - start));
    if (result.noSurvivorSeen()) {
      LOG.debug("MCP server {} shut down: {}", tree.leader().pid(), result);
    } else {
      LOG.warn("MCP server {} left survivors: {}", tree.leader().pid(), result);
    }
    return result;
  }

  private static void closeStdin(ProcessTree tree) {
    try {
      tree.leader().getOutputStream().close();
    } catch (IOException e) {
      LOG.debug("closing the stdin of MCP server {}", tree.leader().pid(), e);
    }
  }

  private static boolean await(CompletableFuture<ProcessTree> exit, Duration wait) {
    if (exit.isDone() || wait.isZero()) {
      return exit.isDone();
    }
    try {
      exit.get(wait.toNanos(), TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      LOG.debug("watching the exit of MCP server tree {}", exit, e);
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // kept set: the tree's termination cuts its grace short
      return false;
    }
  }

  private static OptionalInt exitCode(ProcessTree tree) {
    try {
      return tree.leader().isAlive()
          ? OptionalInt.empty()
          : OptionalInt.of(tree.leader().exitValue());
    } catch (IllegalThreadStateException e) {
      return OptionalInt.empty();
    }
  }
}
