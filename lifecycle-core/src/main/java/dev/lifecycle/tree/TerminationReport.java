package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessIdentity;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one termination did. Every caller of a tree's {@code terminate} gets the same instance.
 *
 * @param endedBy the stage that ended the tree
 * @param processGroupId the group that was signalled as a whole, or {@code -1} when every process
 *     was signalled on its own (no group signals on this platform, or the group was not ours)
 * @param terminated pids sent SIGTERM (group members as seen when the group was signalled, and each
 *     process signalled by identity)
 * @param killed pids sent SIGKILL, counted the same way
 * @param escapees processes found outside the tree's group, and how each was found
 * @param skipped processes that were never signalled because their pid now names another process
 * @param survivors processes still alive after SIGKILL and the bounded verification (for example in
 *     uninterruptible sleep); empty when the tree is proven gone
 * @param problems unexpected failures met on the way; the escalation went on regardless
 * @param elapsed wall time from the first check to the end of the sweep
 */
public record TerminationReport(
    Stage endedBy,
    long processGroupId,
    Set<Long> terminated,
    Set<Long> killed,
    List<TreeMember> escapees,
    List<ProcessIdentity> skipped,
    List<TreeMember> survivors,
    List<String> problems,
    Duration elapsed) {

  /** The stage that ended a tree. */
  public enum Stage {
    /** Nothing was alive when termination started: no signal was sent. */
    ALREADY_GONE,
    /** Everything exited within its grace after SIGTERM. */
    TERM,
    /** Something outlived its grace and was sent SIGKILL. */
    KILL
  }

  public TerminationReport {
    Objects.requireNonNull(endedBy, "endedBy");
    Objects.requireNonNull(elapsed, "elapsed");
    terminated = Set.copyOf(terminated);
    killed = Set.copyOf(killed);
    escapees = List.copyOf(escapees);
    skipped = List.copyOf(skipped);
    survivors = List.copyOf(survivors);
    problems = List.copyOf(problems);
  }

  /** Whether every process of the tree is proven gone. */
  public boolean isComplete() {
    return survivors.isEmpty();
  }

  @Override
  public String toString() {
    StringBuilder out =
        new StringBuilder("TerminationReport[ended by ")
            .append(endedBy)
            .append(" in ")
            .append(elapsed.toMillis())
            .append(" ms");
    if (processGroupId > 0) {
      out.append(", group ").append(processGroupId);
    }
    out.append(", TERM ").append(sorted(terminated)).append(", KILL ").append(sorted(killed));
    if (!escapees.isEmpty()) {
      out.append(", escapees ").append(escapees);
    }
    if (!skipped.isEmpty()) {
      out.append(", skipped (identity mismatch) ").append(skipped);
    }
    if (!survivors.isEmpty()) {
      out.append(", SURVIVORS ").append(survivors);
    }
    if (!problems.isEmpty()) {
      out.append(", problems ").append(problems);
    }
    return out.append(']').toString();
  }

  private static String sorted(Set<Long> pids) {
    return pids.size() <= 12
        ? new TreeSet<>(pids).toString()
        : pids.size() + " pids " + new TreeSet<>(pids).first() + ".." + new TreeSet<>(pids).last();
  }
}
