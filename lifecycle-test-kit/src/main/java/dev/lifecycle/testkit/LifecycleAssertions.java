package dev.lifecycle.testkit;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;

/**
 * Entry point for AssertJ-style process assertions. Every wait polls against a deadline; failures
 * name pid, state and command line.
 *
 * <pre>{@code
 * assertThat(process).exitsWithin(Duration.ofSeconds(5)).withExitCode(0);
 * assertThatPids(pids).areAllGone(Duration.ofSeconds(2));
 * assertThatTree(TreeSelector.group(pgid)).isEmptyWithin(Duration.ofSeconds(2));
 * assertThatTree(pid).doesNotSpin(Duration.ofSeconds(1), 0.5);
 * assertThatTree(pid).doesNotSpinInTotal(Duration.ofSeconds(1), 0.7);
 * }</pre>
 *
 * <p>A bare pid uses {@link #assertThatPid(long)}, not an {@code assertThat(long)} overload, so a
 * static import next to AssertJ's {@code Assertions.assertThat} never turns ambiguous. Soft
 * assertions: {@link LifecycleSoftAssertions}.
 */
public final class LifecycleAssertions {
  private LifecycleAssertions() {}

  /**
   * Assertions on a process started by this JVM.
   *
   * @param process the process
   * @return its assertions
   */
  public static ProcessAssert assertThat(Process process) {
    return new ProcessAssert(process);
  }

  /**
   * Assertions on the process {@code handle} names.
   *
   * @param handle the process
   * @return its assertions
   */
  public static ProcessAssert assertThat(ProcessHandle handle) {
    return new ProcessAssert(handle);
  }

  /**
   * Assertions on the process with {@code pid}, whoever started it.
   *
   * @param pid the process id
   * @return its assertions
   */
  public static ProcessAssert assertThatPid(long pid) {
    return new ProcessAssert(pid);
  }

  /**
   * Assertions on a set of processes by pid.
   *
   * @param pids the process ids (copied; duplicates count once)
   * @return their assertions
   */
  public static PidsAssert assertThatPids(Collection<Long> pids) {
    return new PidsAssert(Set.copyOf(pids));
  }

  /**
   * Assertions on the processes {@code tree} selects, read afresh at every check.
   *
   * @param tree which processes make up the tree
   * @return its assertions
   */
  public static TreeAssert assertThatTree(TreeSelector tree) {
    return new TreeAssert(tree);
  }

  /**
   * The tree of {@code rootPid}: it and its descendants by parentage.
   *
   * @param rootPid the root's pid, positive
   * @return the tree's assertions
   */
  public static TreeAssert assertThatTree(long rootPid) {
    return assertThatTree(TreeSelector.root(rootPid));
  }

  /**
   * Shortcut for {@code assertThatTree(tree).isEmptyWithin(within)}.
   *
   * @param tree which processes make up the tree
   * @param within how long members may take to exit; zombies count as gone
   * @throws AssertionError listing the members still running after {@code within}
   */
  public static void treeIsEmpty(TreeSelector tree, Duration within) {
    assertThatTree(tree).isEmptyWithin(within);
  }

  /**
   * Fails when any descendant of this JVM uses more than {@code maxCoreFraction} of a core.
   *
   * @param window how long CPU time is sampled
   * @param maxCoreFraction the most CPU each descendant may use over the window, as a fraction of
   *     one core (0.5 = half a core), above 0
   * @throws AssertionError listing the descendants that used more
   */
  public static void assertNoSpin(Duration window, double maxCoreFraction) {
    assertThatTree(TreeSelector.descendantsOfThisJvm()).doesNotSpin(window, maxCoreFraction);
  }
}
