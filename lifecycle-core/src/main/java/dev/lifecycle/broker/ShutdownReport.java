package dev.lifecycle.broker;

import dev.lifecycle.tree.TerminationReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a broker's shutdown pass did. Immutable and thread-safe.
 *
 * @param reason the trigger that started the pass
 * @param recordCleared whether the pass removed its own record (false when it was never published
 *     or a successor's record had replaced it)
 * @param artifactsLeft own artifacts that could not be removed
 * @param backends one report per backend tree, in adoption order
 * @param problems failures met on the way; the pass went on regardless
 * @param elapsed from the trigger to the end of the pass
 */
public record ShutdownReport(
    ShutdownReason reason,
    boolean recordCleared,
    List<Path> artifactsLeft,
    List<TerminationReport> backends,
    List<String> problems,
    Duration elapsed) {

  /**
   * Copies the lists.
   *
   * @param reason the trigger that started the pass
   * @param recordCleared whether the pass removed its own record (false when it was never published
   *     or a successor's record had replaced it)
   * @param artifactsLeft own artifacts that could not be removed
   * @param backends one report per backend tree, in adoption order
   * @param problems failures met on the way; the pass went on regardless
   * @param elapsed from the trigger to the end of the pass
   * @throws NullPointerException if a component is {@code null}
   */
  public ShutdownReport {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(elapsed, "elapsed");
    artifactsLeft = List.copyOf(artifactsLeft);
    backends = List.copyOf(backends);
    problems = List.copyOf(problems);
  }

  /**
   * Whether nothing went wrong and no backend tree left a process its tier could see ({@link
   * TerminationReport#noSurvivorSeen()}); whether each is also proven gone is its {@link
   * TerminationReport#isComplete()}, never so in the SESSION tier.
   *
   * @return {@code true} if no problem was met, no artifact left and no backend report saw a
   *     survivor or suspect
   */
  public boolean isClean() {
    return problems.isEmpty()
        && artifactsLeft.isEmpty()
        && backends.stream().allMatch(TerminationReport::noSurvivorSeen);
  }
}
