package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.ProcessPlatform;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The engine's promise, whatever the membership: a failure in any step still leads through the
 * kill, the verification, the survivor check and the reap, and nothing alive at the start goes
 * straight to the reap. The membership here only records the steps it is asked to take.
 */
class TerminationTest {
  private static final List<String> ALL =
      List.of("scan", "term", "grace", "kill", "verify", "survivors", "reap");

  @ParameterizedTest
  @CsvSource({
    "scan, SCAN, scan kill verify survivors reap",
    "term, TERM, scan term kill verify survivors reap",
    "grace, GRACE, scan term grace kill verify survivors reap",
    "kill, KILL, scan term grace kill verify survivors reap",
    "verify, VERIFY, scan term grace kill verify survivors reap",
    "survivors, SWEEP, scan term grace kill verify survivors reap"
  })
  void aFailingStepStillEndsInKillVerifyAndReap(String failing, String state, String expected) {
    Steps steps = new Steps(failing, true);

    TerminationReport report = run(steps);

    assertThat(steps.taken).containsExactly(expected.split(" "));
    assertThat(report.problems()).singleElement().asString().startsWith(state + ": ");
    assertThat(steps.removed).as("afterReap(gone): nothing survived").isTrue();
  }

  @Test
  void aTreeFoundGoneIsOnlyReaped() {
    Steps steps = new Steps("", false);

    TerminationReport report = run(steps);

    assertThat(steps.taken).containsExactly("scan", "reap");
    assertThat(report.endedBy()).isEqualTo(TerminationReport.Stage.ALREADY_GONE);
    assertThat(steps.removed).as("afterReap(gone) of a tree found gone").isFalse();
  }

  private static TerminationReport run(Steps steps) {
    ProcessPlatform platform = ProcessPlatform.get();
    Signaller signaller = new Signaller(platform, platform.self(), -1, false);
    return new Termination(
            steps,
            signaller,
            Duration.ofSeconds(1),
            TreeOptions.defaults(),
            null,
            Duration.ZERO,
            null,
            "test",
            "test")
        .run();
  }

  /** Records each step; {@code failing} throws. */
  private static final class Steps implements Termination.Membership {
    final List<String> taken = new ArrayList<>();
    private final String failing;
    private final boolean alive;
    boolean removed;

    Steps(String failing, boolean alive) {
      assertThat(failing.isEmpty() || ALL.contains(failing)).isTrue();
      this.failing = failing;
      this.alive = alive;
    }

    private void step(String name) {
      taken.add(name);
      if (name.equals(failing)) {
        throw new IllegalStateException(name + " failed");
      }
    }

    @Override
    public ContainmentTier tier() {
      return ContainmentTier.CGROUP;
    }

    @Override
    public boolean anyAlive() {
      step("scan");
      return alive;
    }

    @Override
    public void term() {
      step("term");
    }

    @Override
    public void awaitGone(long deadline) {
      step("grace");
    }

    @Override
    public void kill() {
      step("kill");
    }

    @Override
    public void verify(long deadline) {
      step("verify");
    }

    @Override
    public List<TreeMember> survivors() {
      step("survivors");
      return List.of();
    }

    @Override
    public void afterReap(boolean gone) {
      step("reap");
      removed = gone;
    }

    @Override
    public List<String> suspects() {
      return List.of();
    }
  }
}
