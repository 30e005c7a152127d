package dev.lifecycle.testkit;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a {@link ConcurrentLaunch} observed: one result per process, and every descendant seen while
 * they ran. Its assertions kill whatever they find still running before failing, so a failed
 * assertion leaves nothing behind.
 */
public final class LaunchReport {
  private final List<LaunchResult> results;
  private final Set<ProcessIdentity> seen;
  private final String cookie;
  private final ProcessPlatform platform;

  LaunchReport(
      List<LaunchResult> results,
      Set<ProcessIdentity> seen,
      String cookie,
      ProcessPlatform platform) {
    this.results = List.copyOf(results);
    this.seen = Set.copyOf(seen);
    this.cookie = cookie;
    this.platform = platform;
  }

  /**
   * One result per launched process, in launch order.
   *
   * @return the results, unmodifiable
   */
  public List<LaunchResult> results() {
    return results;
  }

  /**
   * Every process seen in the launched trees while they ran, the launched ones included.
   *
   * @return the identities, unmodifiable
   */
  public Set<ProcessIdentity> processesSeen() {
    return seen;
  }

  /**
   * The cookie every launched process (and its descendants) carried.
   *
   * @return the value of the cookie environment variable of this launch
   */
  public String cookie() {
    return cookie;
  }

  /**
   * Exit codes by index; {@code -1} for a process that did not exit.
   *
   * @return one code per launched process, in launch order
   */
  public List<Integer> exitCodes() {
    return results.stream().map(r -> r.exitCode().orElse(-1)).toList();
  }

  /**
   * Asserts every process exited by itself (or by the harness) within {@code bound}.
   *
   * @param bound the longest a process may have run
   * @return this report
   * @throws AssertionError listing the late processes, after the survivors were killed
   */
  public LaunchReport assertAllExitedWithin(Duration bound) {
    List<LaunchResult> late =
        results.stream().filter(r -> !r.exited() || r.elapsed().compareTo(bound) > 0).toList();
    if (!late.isEmpty()) {
      killSurvivors();
      throw new AssertionError(
          late.size()
              + " of "
              + results.size()
              + " processes did not exit within "
              + bound
              + ":\n  "
              + late.stream().map(LaunchResult::toString).collect(Collectors.joining("\n  ")));
    }
    return this;
  }

  /**
   * Asserts that every launched process, every descendant seen during the run and every process
   * carrying the launch's cookie is gone (zombies count as gone) within {@code within}.
   *
   * @param within how long they may take to be gone
   * @return this report
   * @throws AssertionError listing those still running, after they were killed
   */
  public LaunchReport assertAllGone(Duration within) {
    if (!Polling.until(within, () -> survivors().isEmpty())) {
      List<ProcessIdentity> left = survivors();
      List<String> lines =
          left.stream().map(id -> Describe.pid(platform, id.pid())).collect(Collectors.toList());
      killSurvivors();
      throw new AssertionError(
          left.size()
              + " processes of the launch still run "
              + within
              + " after the check began (now killed):\n  "
              + String.join("\n  ", lines));
    }
    return this;
  }

  /**
   * Identities that may still be running: seen ones plus current cookie carriers.
   *
   * @return the ones of those still running now (zombies count as gone)
   */
  public List<ProcessIdentity> survivors() {
    Set<ProcessIdentity> candidates = new LinkedHashSet<>(seen);
    for (long pid : platform.findByEnvironment(SpawnOptions.COOKIE_VARIABLE, cookie)) {
      platform.identify(pid).ifPresent(candidates::add);
    }
    List<ProcessIdentity> out = new ArrayList<>();
    for (ProcessIdentity id : candidates) {
      if (platform.probe(id) == Liveness.ALIVE) {
        out.add(id);
      }
    }
    return out;
  }

  /** SIGKILLs (identity-checked) every survivor and waits, bounded, until they are gone. */
  public void killSurvivors() {
    for (int round = 0; round < 3; round++) {
      List<ProcessIdentity> left = survivors();
      if (left.isEmpty()) {
        return;
      }
      left.forEach(id -> platform.signal(id, Signal.KILL));
      Polling.until(Duration.ofSeconds(2), () -> survivors().isEmpty());
    }
  }

  @Override
  public String toString() {
    return results.stream().map(LaunchResult::toString).collect(Collectors.joining("\n"));
  }
}
