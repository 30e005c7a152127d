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
   * Whether the tree was ended: a termination ran and none of the processes it signalled survived.
   * Suspects the SESSION tier names ({@link TerminationReport#unprovable()}: processes it cannot
   * tell are the tree's) are not members, so they were not signalled and do not count here.
   *
   * @return {@code true} when a termination ran and nothing survived it
   */
  public boolean ended() {
    return termination.isPresent() && termination.get().survivors().isEmpty();
  }

  /**
   * Whether a termination ran and a process of the tree survived it (e.g. in uninterruptible
   * sleep).
   *
   * @return {@code true} when the tree could not be ended
   */
  public boolean failed() {
    return termination.isPresent() && !termination.get().survivors().isEmpty();
  }
}
