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

  /**
   * Assertions on the processes {@code tree} selects, read and signalled with {@link
   * ProcessPlatform#get()}.
   *
   * @param tree which processes make up the tree
   */
  public TreeAssert(TreeSelector tree) {
    super(tree, TreeAssert.class);
    this.platform = ProcessPlatform.get();
  }

  /**
   * Waits (polling, bounded) until no member is running; zombies count as gone.
   *
   * @param within how long members may take to exit
   * @return this assertion
   * @throws AssertionError listing the members still running after {@code within}
   */
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
   *
   * @param window how long CPU time is sampled
   * @param maxCoreFraction the most each member may use, as a fraction of one core, above 0
   * @return this assertion
   * @throws IllegalArgumentException if {@code maxCoreFraction} is not a finite number above 0
   * @throws AssertionError listing the members that used more
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
   *
   * @param window how long CPU time is sampled
   * @param maxCoreFraction the most all members together may use, as a fraction of one core, above
   *     0
   * @return this assertion
   * @throws IllegalArgumentException if {@code maxCoreFraction} is not a finite number above 0
   * @throws AssertionError with the total and the members' shares
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
