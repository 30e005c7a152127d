package dev.lifecycle.testkit.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.testing.Requirement;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Runs only where a Docker engine answers and a static busybox exists; skipped otherwise, except
 * under {@code CI=true}, where a missing engine fails the run. Checked before each test, not once
 * for the class: surefire counts a class skipped in {@code @BeforeAll} as "Tests run: 0", which
 * hides that three tests did not run.
 */
class ContainerCheckTest {
  @BeforeEach
  void needDocker() {
    Requirement.require(
        ContainerCheck.busyboxAvailable(),
        "needs a static busybox at "
            + ContainerCheck.DEFAULT_BUSYBOX
            + " (Debian package: busybox-static)");
    Requirement.require(
        ContainerCheck.dockerAvailable(),
        "needs a Docker engine that answers (Debian package: docker.io)");
  }

  @Test
  void cleanProgramLeavesOnlyPid1() throws Exception {
    run(
            "/bin/busybox sleep 0.2 & wait; echo done; exec /bin/busybox sleep 600",
            Duration.ofSeconds(30))
        .assertOnlyPid1Remains();
  }

  @Test
  void orphanLeftRunningFails() throws Exception {
    ContainerCheck.Result result = runLeavingAnOrphan("600");
    assertThatThrownBy(result::assertOnlyPid1Remains)
        .hasMessageContaining("found 2 processes")
        .hasMessageContaining("ppid 1 (busybox)");
  }

  @Test
  void unreapedZombieFails() throws Exception {
    // The orphan exits after 200 ms; PID 1 then is a sleep that never reaps it.
    ContainerCheck.Result result = runLeavingAnOrphan("0.2");
    assertThat(result.zombies()).hasSize(1);
    assertThatThrownBy(result::assertOnlyPid1Remains).hasMessageContaining("1 unreaped zombies");
  }

  /**
   * Runs a PID 1 that leaves an orphan sleeping {@code seconds} and then sleeps itself, never
   * reaping: 3 s at most.
   */
  private static ContainerCheck.Result runLeavingAnOrphan(String seconds) throws Exception {
    return run(
        "(/bin/busybox sleep " + seconds + " &); echo done; exec /bin/busybox sleep 600",
        Duration.ofSeconds(3));
  }

  /** Runs {@code script} as PID 1 of a fresh container, for at most {@code bound}. */
  private static ContainerCheck.Result run(String script, Duration bound) throws Exception {
    return ContainerCheck.shellAsPid1(script).within(bound).build().run();
  }
}
