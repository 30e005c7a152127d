package dev.lifecycle.testkit;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessPlatform;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a set of pids. Not final and with a public constructor, so AssertJ soft assertions
 * can proxy it. Not thread-safe.
 */
public class PidsAssert extends AbstractAssert<PidsAssert, Set<Long>> {
  private final ProcessPlatform platform;

  /**
   * Assertions on {@code pids}, probed with {@link ProcessPlatform#get()}.
   *
   * @param pids the process ids (copied)
   */
  public PidsAssert(Set<Long> pids) {
    super(Set.copyOf(pids), PidsAssert.class);
    this.platform = ProcessPlatform.get();
  }

  /**
   * Waits (polling, bounded) until every pid is gone: no such process, or a zombie.
   *
   * @param within how long they may take
   * @return this assertion
   * @throws AssertionError listing the pids still running after {@code within}
   */
  public PidsAssert areAllGone(Duration within) {
    isNotNull();
    boolean gone =
        Polling.until(
            within, () -> actual.stream().allMatch(p -> platform.probe(p) == Liveness.GONE));
    if (!gone) {
      List<String> left =
          actual.stream()
              .sorted()
              .filter(p -> platform.probe(p) != Liveness.GONE)
              .map(p -> Describe.pid(platform, p))
              .toList();
      failWithMessage(
          "expected all of %d pids to be gone within %s, but %d still run:%n  %s",
          actual.size(), within, left.size(), left.stream().collect(Collectors.joining("\n  ")));
    }
    return this;
  }
}
