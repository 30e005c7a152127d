package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.testkit.LeakedProcess.Reason;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * How a {@link LeakTracker} decides which processes a check blames: {@link CgroupAttribution}
 * (exact) or {@link EvidenceAttribution}. The tracker filters what a tier blames (shared, ignored,
 * reported before) and the {@link LeakKiller} kills it.
 */
interface AttributionTier extends AutoCloseable {
  /** What a tier blames now, by pid in the order found, with the rows to describe them from. */
  record Blamed(Rows rows, Map<Long, Reason> reasons) {}

  /** {@link Attribution#CGROUP} or {@link Attribution#EVIDENCE}. */
  Attribution tier();

  /** Why this tier is in force, for the report; may be empty. */
  String note();

  /** The processes this tier attributes now, alive or not. */
  Blamed blame();

  /** Samples this JVM's new descendants once now, where the tier samples. */
  default void sample() {}

  /** Every process seen as a descendant of this JVM since the start. */
  default Set<ProcessKey> seen() {
    return Set.of();
  }

  /** The parent chain {@code p} had when first sampled, or null when it never was. */
  default List<String> sampledChain(ProcessInfo p) {
    return null;
  }

  /** Called when a check begins, before the first look. */
  default void beforeCheck() {}

  /**
   * Kills what the tier can kill at once, before the {@link LeakKiller} signals one by one; takes
   * what it killed out of {@code targets} and lists it in {@code kills}.
   *
   * @param targets the leaks still to kill, by pid; ones found meanwhile are added and removed
   * @param commands command lines by pid, for the kills
   * @param kills the kills so far
   * @param find the leaks now
   */
  default void killFirst(
      Map<Long, ProcessIdentity> targets,
      Map<Long, String> commands,
      List<KilledProcess> kills,
      Supplier<List<LeakedProcess>> find) {}

  /** A note for the report the tier only knows at its end. */
  default Optional<String> caveat() {
    return Optional.empty();
  }

  /**
   * The cgroup this JVM runs in for the check, where there is one (a nested check enters below).
   */
  default Optional<TestCgroup> cgroup() {
    return Optional.empty();
  }

  /** Stops sampling and removes what the tier set up. Idempotent. */
  @Override
  void close();
}
