package dev.lifecycle.testkit;

import org.assertj.core.api.AbstractSoftAssertions;

/**
 * Soft assertions over processes: every failure is collected, {@link #assertAll()} reports them
 * together. Not thread-safe, like AssertJ's own.
 *
 * <pre>{@code
 * LifecycleSoftAssertions softly = new LifecycleSoftAssertions();
 * softly.assertThat(first).exitsWithin(Duration.ofSeconds(5)).withExitCode(0);
 * softly.assertThatPids(pids).areAllGone(Duration.ofSeconds(2));
 * softly.assertAll();
 * }</pre>
 */
public class LifecycleSoftAssertions extends AbstractSoftAssertions
    implements LifecycleSoftAssertionsProvider {

  /** An empty collection of soft assertions. */
  public LifecycleSoftAssertions() {}
}
