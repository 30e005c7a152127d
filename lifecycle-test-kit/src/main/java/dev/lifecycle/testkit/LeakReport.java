package dev.lifecycle.testkit;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The result of a leak check: what outlived the checked code, on which evidence and in which tier,
 * and every kill the check made. Immutable.
 *
 * @param testName the test (or class) the leaks are attributed to
 * @param tier the attribution tier in force ({@link Attribution#CGROUP} or {@link
 *     Attribution#EVIDENCE})
 * @param tierNote where the cgroup was, or why the cgroup tier was not used; {@code ""} for none
 * @param leaks the leaked processes, empty when clean
 * @param waited how long the check lingered for them to exit by themselves
 * @param action what the check does with leaks ({@link LeakAction#WARN} kills nothing)
 * @param kills every process the check killed, leaks and what appeared while killing them
 * @param survivors pids still alive after the kills (non-empty is an error)
 * @param caveat a note on attribution quality (e.g. concurrent tests), {@code ""} for none
 */
public record LeakReport(
    String testName,
    Attribution tier,
    String tierNote,
    List<LeakedProcess> leaks,
    Duration waited,
    LeakAction action,
    List<KilledProcess> kills,
    List<Long> survivors,
    String caveat) {

  /**
   * Copies the lists.
   *
   * @param testName the test (or class) the leaks are attributed to
   * @param tier the attribution tier in force ({@link Attribution#CGROUP} or {@link
   *     Attribution#EVIDENCE})
   * @param tierNote where the cgroup was, or why the cgroup tier was not used; {@code ""} for none
   * @param leaks the leaked processes, empty when clean
   * @param waited how long the check lingered for them to exit by themselves
   * @param action what the check does with leaks ({@link LeakAction#WARN} kills nothing)
   * @param kills every process the check killed, leaks and what appeared while killing them
   * @param survivors pids still alive after the kills (non-empty is an error)
   * @param caveat a note on attribution quality (e.g. concurrent tests), {@code ""} for none
   * @throws NullPointerException if a component is {@code null}
   */
  public LeakReport {
    Objects.requireNonNull(testName, "testName");
    Objects.requireNonNull(tier, "tier");
    Objects.requireNonNull(tierNote, "tierNote");
    leaks = List.copyOf(leaks);
    Objects.requireNonNull(waited, "waited");
    Objects.requireNonNull(action, "action");
    kills = List.copyOf(kills);
    survivors = List.copyOf(survivors);
    Objects.requireNonNull(caveat, "caveat");
  }

  /**
   * Whether the check found no leak ({@code leaks} is empty); kills and survivors are not
   * considered. Proof only in the {@link Attribution#CGROUP} tier: the {@link Attribution#EVIDENCE}
   * tier cannot see a daemon that left session and parent before a sample and carries no marker,
   * and {@link #render()} says so.
   *
   * @return {@code true} if no leak was found
   */
  public boolean isClean() {
    return leaks.isEmpty();
  }

  LeakReport afterKills(List<KilledProcess> done, List<Long> alive) {
    return new LeakReport(testName, tier, tierNote, leaks, waited, action, done, alive, caveat);
  }

  /**
   * The readable report: tier, one entry per leaked process with its evidence, every kill.
   *
   * @return the report as multi-line text
   */
  public String render() {
    StringBuilder out = new StringBuilder();
    if (isClean()) {
      out.append(testName)
          .append(
              tier == Attribution.CGROUP
                  ? ": no leaked processes"
                  : ": no leaked process seen (not proven: this tier cannot see a daemon that left"
                      + " session and parent before a sample and carries no marker)");
    } else {
      out.append(testName)
          .append(" leaked ")
          .append(leaks.size())
          .append(leaks.size() == 1 ? " process" : " processes")
          .append(" still running ")
          .append(waited.toMillis())
          .append(" ms after it ended:\n");
      for (LeakedProcess leak : leaks) {
        out.append("  - ").append(leak.describe()).append('\n');
      }
    }
    out.append("\n  attribution: ").append(tier);
    if (!tierNote.isEmpty()) {
      out.append(" (").append(tierNote).append(')');
    }
    if (action == LeakAction.WARN) {
      if (!isClean()) {
        out.append("\n  action WARN: nothing was killed");
      }
    } else if (!kills.isEmpty()) {
      out.append("\n  killed, so later tests start clean:");
      for (KilledProcess k : kills) {
        out.append("\n    ").append(k.describe());
      }
    }
    if (!survivors.isEmpty()) {
      out.append("\n  cleanup FAILED, still alive: ").append(survivors);
    }
    if (!caveat.isEmpty()) {
      out.append("\n  note: ").append(caveat);
    }
    return out.toString();
  }

  @Override
  public String toString() {
    return render();
  }
}
