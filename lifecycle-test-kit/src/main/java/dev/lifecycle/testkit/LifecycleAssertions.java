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

  public static ProcessAssert assertThat(Process process) {
    return new ProcessAssert(process);
  }

  public static ProcessAssert assertThat(ProcessHandle handle) {
    return new ProcessAssert(handle);
  }

  public static ProcessAssert assertThatPid(long pid) {
    return new ProcessAssert(pid);
  }

  public static PidsAssert assertThatPids(Collection<Long> pids) {
    return new PidsAssert(Set.copyOf(pids));
  }

  public static TreeAssert assertThatTree(TreeSelector tree) {
    return new TreeAssert(tree);
  }

  /** The tree of {@code rootPid}: it and its descendants by parentage. */
  public static TreeAssert assertThatTree(long rootPid) {
    return assertThatTree(TreeSelector.root(rootPid));
  }

  /** Shortcut for {@code assertThatTree(tree).isEmptyWithin(within)}. */
  public static void treeIsEmpty(TreeSelector tree, Duration within) {
    assertThatTree(tree).isEmptyWithin(within);
  }

  /** Fails when any descendant of this JVM uses more than {@code maxCoreFraction} of a core. */
  public static void assertNoSpin(Duration window, double maxCoreFraction) {
    assertThatTree(TreeSelector.descendantsOfThisJvm()).doesNotSpin(window, maxCoreFraction);
  }
}
