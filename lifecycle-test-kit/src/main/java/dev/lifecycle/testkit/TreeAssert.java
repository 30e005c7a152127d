package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a tree of processes chosen by a {@link TreeSelector}. Not final and with a public
 * constructor, so AssertJ soft assertions can proxy it. Not thread-safe.
 */
public class TreeAssert extends AbstractAssert<TreeAssert, TreeSelector> {
  private final ProcessPlatform platform;

  public TreeAssert(TreeSelector tree) {
    super(tree, TreeAssert.class);
    this.platform = ProcessPlatform.get();
  }

  /** Waits (polling, bounded) until no member is running; zombies count as gone. */
  public TreeAssert isEmptyWithin(Duration within) {
    isNotNull();
    boolean empty = Polling.until(within, () -> running().isEmpty());
    if (!empty) {
      List<ProcessInfo> left = running();
      failWithMessage(
          "expected %s to be empty within %s, but %d still run:%n  %s",
          actual,
          within,
          left.size(),
          left.stream()
              .map(p -> Describe.pid(platform, p.pid()))
              .collect(Collectors.joining("\n  ")));
    }
    return this;
  }

  /**
   * Samples the members' CPU time over {@code window} and fails when any member used more than
   * {@code maxCoreFraction} of one core (0.5 = half a core).
   */
  public TreeAssert doesNotSpin(Duration window, double maxCoreFraction) {
    isNotNull();
    if (!(maxCoreFraction > 0) || Double.isInfinite(maxCoreFraction)) {
      throw new IllegalArgumentException("maxCoreFraction must be > 0: " + maxCoreFraction);
    }
    List<ProcessCpu> cpu = CpuSampler.sample(actual, window, platform);
    List<ProcessCpu> spinning =
        cpu.stream().filter(c -> c.coreFraction() > maxCoreFraction).toList();
    if (!spinning.isEmpty()) {
      failWithMessage(
          "expected no member of %s to use more than %.0f%% of a core over %s, but:%n  %s",
          actual,
          maxCoreFraction * 100,
          window,
          spinning.stream().map(ProcessCpu::toString).collect(Collectors.joining("\n  ")));
    }
    return this;
  }

  /**
   * Samples the members' CPU time over {@code window} and fails when all of them together used more
   * than {@code maxCoreFraction} of one core: catches a tree of many half-busy members that {@link
   * #doesNotSpin} (member by member) lets pass. Members that lived only part of the window count
   * with what they used.
   */
  public TreeAssert doesNotSpinInTotal(Duration window, double maxCoreFraction) {
    isNotNull();
    if (!(maxCoreFraction > 0) || Double.isInfinite(maxCoreFraction)) {
      throw new IllegalArgumentException("maxCoreFraction must be > 0: " + maxCoreFraction);
    }
    CpuSampler.Window w = CpuSampler.sampleWindow(actual, window, platform);
    if (w.totalCoreFraction() > maxCoreFraction) {
      failWithMessage(
          "expected %s to use at most %.0f%% of a core in total over %s, but it used %.0f%%"
              + " (%d ms CPU in %d ms):%n  %s",
          actual,
          maxCoreFraction * 100,
          window,
          w.totalCoreFraction() * 100,
          w.totalUsed().toMillis(),
          w.elapsed().toMillis(),
          w.members().stream().map(ProcessCpu::toString).collect(Collectors.joining("\n  ")));
    }
    return this;
  }

  private List<ProcessInfo> running() {
    return actual.members(platform.snapshot(), platform).stream()
        .filter(p -> !p.hasExited())
        .filter(p -> p.pid() != platform.self().pid())
        .toList();
  }
}
