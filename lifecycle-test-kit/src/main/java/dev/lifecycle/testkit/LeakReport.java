package dev.lifecycle.testkit;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The result of a leak check: the processes that outlived the test, and what the cleanup did.
 *
 * @param testName the test (or class) the leaks are attributed to
 * @param leaks the leaked processes, empty when clean
 * @param waited how long the check lingered for them to exit by themselves
 * @param survivors pids still alive after the cleanup (should be empty; non-empty is an error)
 * @param caveat a note on attribution quality (e.g. parallel execution), {@code ""} for none
 */
public record LeakReport(
    String testName,
    List<LeakedProcess> leaks,
    Duration waited,
    List<Long> survivors,
    String caveat) {

  public LeakReport {
    Objects.requireNonNull(testName, "testName");
    leaks = List.copyOf(leaks);
    Objects.requireNonNull(waited, "waited");
    survivors = List.copyOf(survivors);
    Objects.requireNonNull(caveat, "caveat");
  }

  public boolean isClean() {
    return leaks.isEmpty();
  }

  LeakReport withSurvivors(List<Long> pids) {
    return new LeakReport(testName, leaks, waited, pids, caveat);
  }

  /** The readable report: one entry per leaked process. */
  public String render() {
    if (isClean()) {
      return testName + ": no leaked processes";
    }
    StringBuilder out = new StringBuilder();
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
    out.append(
        survivors.isEmpty()
            ? "  all of them were killed (SIGKILL, identity-checked) so later tests start clean"
            : "  cleanup FAILED, still alive: " + survivors);
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
