package dev.lifecycle.process.cgroup;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CgroupPlacementTest {

  @ParameterizedTest
  @ValueSource(
      strings = {"6.18.44-fc-v669", "5.14.0-284.el9.x86_64", "5.15", "10.0.1", "6.1.0-rc3"})
  void aKernelWithCgroupKillIsNotTooOld(String release) {
    assertThat(CgroupPlacement.tooOldForKill(release)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"5.13.0-52-generic", "4.19.0", "3.10.0-1160.el7.x86_64", "5.4-rc1"})
  void aKernelBefore514IsTooOld(String release) {
    assertThat(CgroupPlacement.tooOldForKill(release))
        .hasValue("kernel " + release + " has no cgroup.kill (Linux >= 5.14 needed)");
  }

  /** Not a version: unknown, and cgroup.kill is looked for on the tree's own cgroup instead. */
  @ParameterizedTest
  @ValueSource(strings = {"", "5", "5.", ".14", "x5.13", "5.x13", "1234567.1", "4.1234567", "٥.١٣"})
  void aReleaseThatIsNotMajorDotMinorIsNoVerdict(String release) {
    assertThat(CgroupPlacement.tooOldForKill(release)).isEmpty();
  }
}
