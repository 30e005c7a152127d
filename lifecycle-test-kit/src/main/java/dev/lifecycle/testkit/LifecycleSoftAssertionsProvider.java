package dev.lifecycle.testkit;

import java.util.Collection;
import java.util.Set;
import org.assertj.core.api.SoftAssertionsProvider;

/**
 * The kit's assertions as AssertJ soft assertions: mix it into any {@link SoftAssertionsProvider}
 * (e.g. {@code class MySoftly extends SoftAssertions implements LifecycleSoftAssertionsProvider}),
 * or use {@link LifecycleSoftAssertions}. Every failure is collected instead of thrown.
 */
public interface LifecycleSoftAssertionsProvider extends SoftAssertionsProvider {
  /**
   * Soft assertions on a process started by this JVM (see {@link
   * LifecycleAssertions#assertThat(Process)}).
   *
   * @param process the process
   * @return its soft assertions
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  default ProcessAssert assertThat(Process process) {
    return (ProcessAssert) proxy((Class) ProcessAssert.class, (Class) Process.class, process);
  }

  /**
   * Soft assertions on the process {@code handle} names (see {@link
   * LifecycleAssertions#assertThat(ProcessHandle)}).
   *
   * @param handle the process
   * @return its soft assertions
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  default ProcessAssert assertThat(ProcessHandle handle) {
    return (ProcessAssert) proxy((Class) ProcessAssert.class, (Class) ProcessHandle.class, handle);
  }

  /**
   * Soft assertions on the process with {@code pid} (see {@link
   * LifecycleAssertions#assertThatPid(long)}).
   *
   * @param pid the process id
   * @return its soft assertions
   */
  default ProcessAssert assertThatPid(long pid) {
    return proxy(ProcessAssert.class, Long.class, pid);
  }

  /**
   * Soft assertions on a set of processes by pid (see {@link
   * LifecycleAssertions#assertThatPids(Collection)}).
   *
   * @param pids the process ids (copied)
   * @return their soft assertions
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  default PidsAssert assertThatPids(Collection<Long> pids) {
    return (PidsAssert) proxy((Class) PidsAssert.class, (Class) Set.class, Set.copyOf(pids));
  }

  /**
   * Soft assertions on the processes {@code tree} selects (see {@link
   * LifecycleAssertions#assertThatTree(TreeSelector)}).
   *
   * @param tree which processes make up the tree
   * @return its soft assertions
   */
  default TreeAssert assertThatTree(TreeSelector tree) {
    return proxy(TreeAssert.class, TreeSelector.class, tree);
  }

  /**
   * Soft assertions on {@code rootPid} and its descendants by parentage (see {@link
   * LifecycleAssertions#assertThatTree(long)}).
   *
   * @param rootPid the root's pid, positive
   * @return its soft assertions
   */
  default TreeAssert assertThatTree(long rootPid) {
    return assertThatTree(TreeSelector.root(rootPid));
  }
}
