package dev.lifecycle.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A JVM is in one cgroup at a time: a check started on another thread while one holds the cgroup
 * (concurrent tests) runs in the evidence tier and says why, and the holder's report notes the
 * overlap.
 */
@NoProcessLeaks(scope = LeakScope.CLASS)
class ConcurrentChecksTest {
  @Test
  void aCheckOnAnotherThreadFallsBackToEvidenceAndTheHolderIsTold() throws Exception {
    Assumptions.assumeTrue(
        LeakAttributionTest.cgroupTierExpected(),
        () -> "no writable cgroup v2: " + LeakAttributionTest.CgroupProbe.reason());
    LeakOptions options = LeakOptions.builder().linger(Duration.ZERO).build();
    try (LeakTracker holder = LeakTracker.start(options, "holder")) {
      assertThat(holder.tier()).isEqualTo(Attribution.CGROUP);
      LeakReport other =
          CompletableFuture.supplyAsync(
                  () -> {
                    try (LeakTracker t = LeakTracker.start(options, "other")) {
                      return t.check(Duration.ZERO);
                    }
                  })
              .get(30, TimeUnit.SECONDS);
      assertThat(other.tier()).isEqualTo(Attribution.EVIDENCE);
      assertThat(other.tierNote()).contains("tests run concurrently");
      LeakReport mine = holder.check(Duration.ZERO);
      assertThat(mine.tier()).isEqualTo(Attribution.CGROUP);
      assertThat(mine.caveat()).contains("a concurrent check (other)");
    }
  }
}
