package dev.lifecycle.tree;

import dev.lifecycle.guard.Breach;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.ProcessIdentity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one termination did and what it proved. Every caller of a tree's {@code terminate} gets the
 * same instance. Immutable. Thread-safe.
 *
 * <p>Two verdicts. {@link #noSurvivorSeen()}: nothing the tier could see is left, no survivor and
 * no suspect. {@link #isComplete()}: proven, which only the {@link ContainmentTier#CGROUP} tier can
 * do (the kernel's {@code cgroup.events populated 0}). The {@link ContainmentTier#SESSION} tier
 * rests on session, group, parentage and cookie, and a process that left the session, lost its
 * parent and carries no readable cookie is invisible to all four, so every SESSION report lists
 * {@link #SESSION_BLIND_SPOT} in {@link #unprovable()} and is never complete. Its other lines name
 * suspects: processes started after the tree whose environment is empty, rewritten (e.g. a redis or
 * nginx daemon, or {@code env -i}) or unreadable. A process this user may not signal is never a
 * suspect: a tree running as this user reaches another user's process only through a setuid
 * program, and it could not be ended from here anyway.
 *
 * @param endedBy the stage that ended the tree
 * @param processGroupId the group that was signalled as a whole, or {@code -1} when every process
 *     was signalled on its own (no group signals on this platform, or the group was not ours)
 * @param terminated pids sent SIGTERM: every process known to be in the group when the group was
 *     signalled, and each process signalled by identity
 * @param killed pids sent SIGKILL, counted the same way (in CGROUP tier: the members listed right
 *     before {@code cgroup.kill})
 * @param escapees processes found outside the tree's group, and how each was found
 * @param skipped processes that were never signalled because their pid now names another process
 * @param survivors processes still alive after SIGKILL and the bounded verification (for example in
 *     uninterruptible sleep); empty when the tree is proven gone
 * @param problems unexpected failures met on the way; the escalation went on regardless
 * @param elapsed wall time from the first check to the end of the sweep
 * @param tier the containment tier the tree had
 * @param tierReason where the tree's cgroup was, or why the tree had no cgroup (path and errno)
 * @param unprovable what this tier could not prove gone, each with the reason: in SESSION tier
 *     {@link #SESSION_BLIND_SPOT} first, then one line per suspect; empty when everything was
 *     proven
 * @param leader the leader's pid and command line, for people reading the report
 * @param breach the ceiling whose breach ended the tree (measured value, limit, window), or empty
 *     when the tree was ended for another reason
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
    Duration elapsed,
    ContainmentTier tier,
    String tierReason,
    List<String> unprovable,
    String leader,
    Optional<Breach> breach) {

  /**
   * What no SESSION-tier termination can rule out, the first line of every SESSION report's {@link
   * #unprovable()}: such a process is neither a survivor nor a suspect, it is simply not seen.
   */
  public static final String SESSION_BLIND_SPOT =
      "SESSION tier: a process that left the session, lost its parent and carries no readable"
          + " cookie (env -i setsid, a title-rewriting daemon) is not seen, so none is proven gone";

  /** The stage that ended a tree. */
  public enum Stage {
    /** Nothing was alive when termination started: no signal was sent. */
    ALREADY_GONE,
    /** Everything exited within its grace after SIGTERM. */
    TERM,
    /** Something outlived its grace and was sent SIGKILL. */
    KILL
  }

  /**
   * Copies the collections; in the SESSION tier puts {@link #SESSION_BLIND_SPOT} first in {@code
   * unprovable} when missing.
   *
   * @param endedBy see {@link #endedBy()}
   * @param processGroupId see {@link #processGroupId()}
   * @param terminated see {@link #terminated()}
   * @param killed see {@link #killed()}
   * @param escapees see {@link #escapees()}
   * @param skipped see {@link #skipped()}
   * @param survivors see {@link #survivors()}
   * @param problems see {@link #problems()}
   * @param elapsed see {@link #elapsed()}
   * @param tier see {@link #tier()}
   * @param tierReason see {@link #tierReason()}
   * @param unprovable see {@link #unprovable()}
   * @param leader see {@link #leader()}
   * @param breach see {@link #breach()}
   * @throws NullPointerException if a component is {@code null}
   */
  public TerminationReport {
    Objects.requireNonNull(breach, "breach");
    Objects.requireNonNull(endedBy, "endedBy");
    Objects.requireNonNull(elapsed, "elapsed");
    Objects.requireNonNull(tier, "tier");
    Objects.requireNonNull(tierReason, "tierReason");
    Objects.requireNonNull(leader, "leader");
    terminated = Set.copyOf(terminated);
    killed = Set.copyOf(killed);
    escapees = List.copyOf(escapees);
    skipped = List.copyOf(skipped);
    survivors = List.copyOf(survivors);
    problems = List.copyOf(problems);
    unprovable = withBlindSpot(tier, unprovable);
  }

  /** No stream: this runs at the close of an exited tree, in a cold JVM. */
  private static List<String> withBlindSpot(ContainmentTier tier, List<String> unprovable) {
    if (tier != ContainmentTier.SESSION || unprovable.contains(SESSION_BLIND_SPOT)) {
      return List.copyOf(unprovable);
    }
    List<String> out = new ArrayList<>(unprovable.size() + 1);
    out.add(SESSION_BLIND_SPOT);
    out.addAll(unprovable);
    return List.copyOf(out);
  }

  /**
   * Whether every process of the tree is proven gone: no survivor, and nothing this tier could not
   * see ({@link #unprovable()} empty). Never in the SESSION tier (see {@link #SESSION_BLIND_SPOT}).
   *
   * @return {@code true} if nothing survived and nothing was unprovable
   */
  public boolean isComplete() {
    return survivors.isEmpty() && unprovable.isEmpty();
  }

  /**
   * Whether nothing this tier could see is left: no survivor and no suspect ({@link #unprovable()}
   * holds at most {@link #SESSION_BLIND_SPOT}). The verdict to act on in either tier (warn, retry,
   * fail a shutdown); {@link #isComplete()} says whether it is also proven.
   *
   * @return {@code true} if nothing survived and no process was left unproven by name
   */
  public boolean noSurvivorSeen() {
    for (String line : unprovable) {
      if (!line.equals(SESSION_BLIND_SPOT)) {
        return false;
      }
    }
    return survivors.isEmpty();
  }

  /**
   * One line for people, e.g. {@code TerminationReport[ended by TERM in 1.04 s, tier CGROUP, leader
   * 4711 (sh -c server.sh), group 4711, TERM 200 pids 4711..4910, KILL [], complete]}, with {@code
   * after breach spin: ...} after the leader when a ceiling ended the tree; the verdict at the end
   * is {@code complete}, {@code no survivor seen, not proven} (SESSION tier) or {@code INCOMPLETE}.
   */
  @Override
  public String toString() {
    StringBuilder out =
        new StringBuilder("TerminationReport[ended by ")
            .append(endedBy)
            .append(" in ")
            .append(seconds(elapsed))
            .append(", tier ")
            .append(tier);
    if (tier != ContainmentTier.CGROUP || !isComplete()) {
      out.append(" (").append(tierReason).append(')');
    }
    if (!leader.isEmpty()) {
      out.append(", leader ").append(leader);
    }
    if (breach.isPresent()) {
      out.append(", after breach ").append(breach.get());
    }
    if (processGroupId > 0) {
      out.append(", group ").append(processGroupId);
    }
    out.append(", TERM ").append(sorted(terminated)).append(", KILL ").append(sorted(killed));
    unlessEmpty(out, ", escapees ", escapees);
    unlessEmpty(out, ", skipped (identity mismatch) ", skipped);
    unlessEmpty(out, ", SURVIVORS ", survivors);
    unlessEmpty(out, ", NOT PROVEN ", unprovable);
    unlessEmpty(out, ", problems ", problems);
    out.append(
        isComplete()
            ? ", complete"
            : noSurvivorSeen() ? ", no survivor seen, not proven" : ", INCOMPLETE");
    return out.append(']').toString();
  }

  private static void unlessEmpty(StringBuilder out, String label, List<?> items) {
    if (!items.isEmpty()) {
      out.append(label).append(items);
    }
  }

  private static String seconds(Duration d) {
    long millis = d.toMillis();
    return millis < 1000 ? millis + " ms" : String.format(Locale.ROOT, "%.2f s", d.toNanos() / 1e9);
  }

  private static String sorted(Set<Long> pids) {
    TreeSet<Long> in = new TreeSet<>(pids);
    return in.size() <= 12 ? in.toString() : in.size() + " pids " + in.first() + ".." + in.last();
  }
}
