package dev.lifecycle.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A clean report claims proof only in the tier that has it. */
class LeakReportTest {

  private static LeakReport clean(Attribution tier) {
    return new LeakReport(
        "t", tier, "", List.of(), Duration.ZERO, LeakAction.FAIL, List.of(), List.of(), "");
  }

  @Test
  void aCleanEvidenceReportSaysNothingWasSeenNotThatNothingLeaked() {
    LeakReport report = clean(Attribution.EVIDENCE);

    assertThat(report.isClean()).isTrue();
    assertThat(report.render())
        .startsWith("t: no leaked process seen (not proven")
        .doesNotContain("no leaked processes");
  }

  @Test
  void aCleanCgroupReportSaysNothingLeaked() {
    assertThat(clean(Attribution.CGROUP).render()).startsWith("t: no leaked processes");
  }
}
