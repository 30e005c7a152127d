package dev.lifecycle.mcp;

import dev.lifecycle.tree.TerminationReport;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What shutting down one MCP stdio server did: why, which step of the {@link ShutdownLadder} ended
 * its tree, and (in {@link #tree()}) exactly which processes were sent SIGTERM and SIGKILL and
 * whether any survived. An immutable value; every caller of a transport's shutdown gets the same
 * instance.
 *
 * @param reason what started the shutdown
 * @param endedBy the ladder step after which the tree was proven gone (or the last one tried)
 * @param cause the error that started it, for every reason but {@link ShutdownReason#CLOSED}
 * @param exitCode the tree leader's exit code, once it exited and the code is known (a signal death
 *     reads as {@code 128 + signal})
 * @param tree the tree's termination report; absent only when the server never started
 * @param elapsed from the start of the shutdown until the tree was proven gone
 */
public record StdioShutdownReport(
    ShutdownReason reason,
    Step endedBy,
    Optional<String> cause,
    OptionalInt exitCode,
    Optional<TerminationReport> tree,
    Duration elapsed) {

  /** The ladder step that ended the server's tree. */
  public enum Step {
    /** The server could not be started: there was no tree. */
    NEVER_STARTED,
    /** The whole tree had exited before the ladder started: no signal was sent. */
    ALREADY_GONE,
    /** The tree exited after its stdin was closed, before any signal. */
    STDIN_EOF,
    /** The tree exited within the grace after SIGTERM. */
    TERM,
    /** Something outlived the grace and was sent SIGKILL. */
    KILL
  }

  /**
   * Checks that every component is given (absent values are empty {@code Optional}s).
   *
   * @param reason what started the shutdown
   * @param endedBy the ladder step after which the tree was proven gone (or the last one tried)
   * @param cause the error that started it, for every reason but {@link ShutdownReason#CLOSED}
   * @param exitCode the tree leader's exit code, once it exited and the code is known (a signal
   *     death reads as {@code 128 + signal})
   * @param tree the tree's termination report; absent only when the server never started
   * @param elapsed from the start of the shutdown until the tree was proven gone
   * @throws NullPointerException if a component is {@code null}
   */
  public StdioShutdownReport {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(endedBy, "endedBy");
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(exitCode, "exitCode");
    Objects.requireNonNull(tree, "tree");
    Objects.requireNonNull(elapsed, "elapsed");
  }

  /**
   * Whether every process of the server's tree is proven gone.
   *
   * @return {@code true} if the tree's report is complete or the server never started, {@code
   *     false} if a process survived SIGKILL or could not be proven gone
   */
  public boolean isComplete() {
    return tree.map(TerminationReport::isComplete).orElse(true);
  }

  /**
   * Whether nothing of the server's tree that its tier could see is left; see {@link
   * TerminationReport#noSurvivorSeen()}. In the SESSION tier this is the most a report can say.
   *
   * @return {@code true} if the tree's report saw no survivor or suspect, or the server never
   *     started
   */
  public boolean noSurvivorSeen() {
    return tree.map(TerminationReport::noSurvivorSeen).orElse(true);
  }

  @Override
  public String toString() {
    StringBuilder out =
        new StringBuilder("StdioShutdownReport[")
            .append(reason)
            .append(", ended by ")
            .append(endedBy)
            .append(" in ")
            .append(elapsed.toMillis())
            .append(" ms");
    exitCode.ifPresent(code -> out.append(", exit code ").append(code));
    cause.ifPresent(text -> out.append(", cause: ").append(text));
    tree.ifPresent(report -> out.append(", ").append(report));
    return out.append(']').toString();
  }
}
