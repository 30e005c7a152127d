package dev.lifecycle.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

@NoProcessLeaks(linger = "1s")
class ConcurrentLaunchTest {
  /** A caller that sleeps for a minute: it exits only when killed. */
  private static final FixtureChild SLEEPER =
      FixtureChild.of(FixtureScript.create().sleep(Duration.ofSeconds(60)));

  private static final Duration BOUND = Duration.ofSeconds(10);
  private static final Duration GONE = Duration.ofSeconds(5);

  /** Two {@link #SLEEPER}s launched with the variant under test. */
  private static LaunchReport twoSleepers(UnaryOperator<ConcurrentLaunch.Builder> variant)
      throws Exception {
    return variant.apply(ConcurrentLaunch.builder(SLEEPER.command()).count(2)).build().run();
  }

  @Test
  void coldLaunchCollectsExitCodesOutputAndTimings() throws Exception {
    FixtureChild child = FixtureChild.of(FixtureScript.create().print("hello").exit(5));
    LaunchReport report = ConcurrentLaunch.builder(child.command()).count(6).build().run();
    report.assertAllExitedWithin(BOUND).assertAllGone(GONE);
    assertThat(report.exitCodes()).containsOnly(5).hasSize(6);
    assertThat(report.results()).allMatch(r -> r.stdout().equals("hello\n"));
    assertThat(report.results()).allMatch(r -> r.startLatency().compareTo(BOUND) < 0);
  }

  @Test
  void warmVariantRunsTheWarmUpFirst() throws Exception {
    AtomicInteger warm = new AtomicInteger();
    LaunchReport report =
        ConcurrentLaunch.builder(FixtureChild.of(FixtureScript.create().exit(0)).command())
            .count(3)
            .warmUp(warm::incrementAndGet)
            .build()
            .run();
    assertThat(warm).hasValue(1);
    report.assertAllExitedWithin(BOUND).assertAllGone(GONE);
  }

  @Test
  void brokenPipeVariantEndsWritersBySigpipe() throws Exception {
    LaunchReport report =
        ConcurrentLaunch.builder(FixtureChild.of(FixtureScript.create().writeForever()).command())
            .count(4)
            .closeStdoutAfterFirstLine()
            .build()
            .run();
    report.assertAllExitedWithin(BOUND).assertAllGone(GONE);
    assertThat(report.exitCodes()).containsOnly(128 + 13);
  }

  @Test
  void callerKilledVariantReportsDescendantsThatOutliveTheirCaller() throws Exception {
    // Each caller starts a long-sleeping child; two callers are SIGKILLed once they say so, so
    // their children are orphaned and must be reported (then killed) by assertAllGone.
    FixtureChild child =
        FixtureChild.of(
            FixtureScript.create()
                .spawn(1, FixtureScript.create().sleep(Duration.ofSeconds(60)))
                .ready()
                .sleep(Duration.ofMillis(400))
                .exit(0));
    LaunchReport report =
        ConcurrentLaunch.builder(child.command())
            .count(4)
            .killCallersOnceReady(2)
            .timeout(BOUND)
            .build()
            .run();
    assertThat(report.results()).filteredOn(LaunchResult::killedByHarness).hasSize(2);
    assertThat(report.results())
        .filteredOn(LaunchResult::killedByHarness)
        .allMatch(r -> r.exitCode().orElse(-1) == 128 + 9);
    assertThat(report.processesSeen()).hasSizeGreaterThanOrEqualTo(8);
    assertThatThrownBy(() -> report.assertAllGone(Duration.ofMillis(300)))
        .hasMessageContaining("4 processes of the launch still run")
        .hasMessageContaining("sleep 60");
    assertThat(report.survivors()).isEmpty();
  }

  @Test
  void aDelayedKillWaitsForACallerThatStartsLate() throws Exception {
    // A kill due before the caller has even started still lands once it has.
    LaunchReport report = twoSleepers(b -> b.killCallers(2, Duration.ZERO).timeout(BOUND));
    assertThat(report.results())
        .allMatch(LaunchResult::killedByHarness)
        .allMatch(r -> r.exitCode().orElse(-1) == 128 + 9);
    assertThat(report.survivors()).isEmpty();
  }

  @Test
  void timeoutIsReportedAndTheStragglerKilled() throws Exception {
    LaunchReport report = twoSleepers(b -> b.timeout(Duration.ofMillis(300)));
    assertThatThrownBy(() -> report.assertAllExitedWithin(BOUND))
        .hasMessageContaining("2 of 2 processes did not exit")
        .hasMessageContaining("DID NOT EXIT");
    assertThat(report.survivors()).isEmpty();
  }
}
