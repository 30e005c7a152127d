package dev.lifecycle.inventory;

import dev.lifecycle.tree.TerminationReport;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link Inventory#reap} did with one tree. Immutable and thread-safe.
 *
 * @param tree the tree as the inventory found it
 * @param termination the staged termination's report, or empty when the tree was left alone
 * @param outcome one line: how it ended, or why it was left alone
 */
public record ReapReport(FoundTree tree, Optional<TerminationReport> termination, String outcome) {

  /**
   * Checks the components.
   *
   * @param tree the tree
   * @param termination the termination's report, or empty
   * @param outcome one line
   * @throws NullPointerException if a component is {@code null}
   */
  public ReapReport {
    Objects.requireNonNull(tree, "tree");
    Objects.requireNonNull(termination, "termination");
    Objects.requireNonNull(outcome, "outcome");
  }

  /**
   * Whether the tree was ended and nothing of it was seen surviving.
   *
   * @return {@code true} when a termination ran and saw no survivor
   */
  public boolean ended() {
    return termination.isPresent() && termination.get().noSurvivorSeen();
  }

  /**
   * Whether a termination ran and something of the tree was seen surviving it.
   *
   * @return {@code true} when the tree could not be ended
   */
  public boolean failed() {
    return termination.isPresent() && !termination.get().noSurvivorSeen();
  }
}
