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
  @SuppressWarnings({"unchecked", "rawtypes"})
  default ProcessAssert assertThat(Process process) {
    return (ProcessAssert) proxy((Class) ProcessAssert.class, (Class) Process.class, process);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  default ProcessAssert assertThat(ProcessHandle handle) {
    return (ProcessAssert) proxy((Class) ProcessAssert.class, (Class) ProcessHandle.class, handle);
  }

  default ProcessAssert assertThatPid(long pid) {
    return proxy(ProcessAssert.class, Long.class, pid);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  default PidsAssert assertThatPids(Collection<Long> pids) {
    return (PidsAssert) proxy((Class) PidsAssert.class, (Class) Set.class, Set.copyOf(pids));
  }

  default TreeAssert assertThatTree(TreeSelector tree) {
    return proxy(TreeAssert.class, TreeSelector.class, tree);
  }

  default TreeAssert assertThatTree(long rootPid) {
    return assertThatTree(TreeSelector.root(rootPid));
  }
}
