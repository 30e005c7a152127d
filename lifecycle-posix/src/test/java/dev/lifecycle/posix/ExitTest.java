package dev.lifecycle.posix;

import static dev.lifecycle.posix.Children.PLATFORM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessState;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** java.lang.Process behaviour: waitFor, exitValue, onExit, destroy, and holding a zombie. */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ExitTest {
  @RegisterExtension final Children children = new Children();

  @Test
  void normalExit() throws Exception {
    SupervisedProcess child = children.spawn(new ProcessBuilder("/bin/true"));
    assertThat(child.onExit().get(5, TimeUnit.SECONDS)).isSameAs(child);
    assertThat(child.exitValue()).isZero();
    assertThat(child.waitFor()).isZero();
    assertThat(child.isAlive()).isFalse();
    assertThat(child.reap()).isTrue();
  }

  @Test
  void exitCode() throws Exception {
    SupervisedProcess child = children.sh("exit 3");
    assertThat(child.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).isEqualTo(3);
  }

  @Test
  void runningProcess() throws Exception {
    SupervisedProcess child = children.spawn(new ProcessBuilder("sleep", "30"));
    assertThat(child.isAlive()).isTrue();
    assertThatThrownBy(child::exitValue).isInstanceOf(IllegalThreadStateException.class);
    assertThat(child.waitFor(50, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(child.waitFor(0, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(child.onExit()).isNotDone();
    assertThat(child.reap()).isFalse();
    assertThat(child.toHandle().pid()).isEqualTo(child.pid());
    assertThat(child.supportsNormalTermination()).isTrue();
  }

  @Test
  void destroyForciblyIsSigkill() throws Exception {
    SupervisedProcess child = children.spawn(new ProcessBuilder("sleep", "30"));
    assertThat(child.destroyForcibly()).isSameAs(child);
    assertThat(child.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).isEqualTo(128 + 9);
  }

  @Test
  void destroyIsSigterm() throws Exception {
    SupervisedProcess child = children.spawn(new ProcessBuilder("sleep", "30"));
    child.destroy();
    assertThat(child.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).isEqualTo(128 + 15);
  }

  @Test
  void signalsAfterReapingReachNobody() throws Exception {
    SupervisedProcess child = children.spawn(new ProcessBuilder("/bin/true"));
    assertThat(child.waitFor()).isZero();
    assertThat(((PosixProcess) child).isReaped()).isTrue();
    child.destroyForcibly(); // a no-op: the pid may already belong to someone else
    assertThat(((PosixProcess) child).send(9)).isEqualTo(SignalResult.GONE);
    assertThatThrownBy(child::toHandle).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void keepLeaderUnreapedLeavesAZombieThatProbesAsGone() throws Exception {
    SupervisedProcess child = children.spawnUnreaped(new ProcessBuilder("/bin/true"));
    child.onExit().get(5, TimeUnit.SECONDS);
    assertThat(child.exitValue()).isZero();

    ProcessInfo zombie = ProcFs.stat(child.pid()).orElseThrow();
    assertThat(zombie.state()).isEqualTo(ProcessState.ZOMBIE);
    assertThat(PLATFORM.probe(child.pid())).isEqualTo(Liveness.GONE);
    assertThat(PLATFORM.probe(child.identity())).isEqualTo(Liveness.GONE);
    assertThat(LibC.getpgid((int) child.pid())).isEqualTo((int) child.pid()); // id still pinned

    assertThat(child.reap()).isTrue();
    assertThat(child.reap()).isTrue();
    assertThat(awaitReaped(child)).isTrue();
    assertThat(PLATFORM.probe(child.identity())).isNotEqualTo(Liveness.ALIVE);
  }

  /**
   * A termination reaps its leader as soon as the leader probes as gone, which can be before the
   * exit watcher has collected the exit: the reap must collect it itself, or the zombie is kept for
   * good (nothing reaps it later).
   */
  @Test
  void reapRightAfterTheExitReapsEvenBeforeTheWatcherCollectedIt() throws Exception {
    for (int trial = 0; trial < 40; trial++) {
      SupervisedProcess child = children.spawnUnreaped(new ProcessBuilder("/bin/true"));
      assertThat(Await.within(Duration.ofSeconds(5), () -> isZombie(child.pid())))
          .as("trial %d: %s exited", trial, child)
          .isTrue();

      assertThat(child.reap()).as("trial %d: reap of the zombie %s", trial, child).isTrue();
      assertThat(child.exitValue()).isZero();
      assertThat(awaitReaped(child)).as("trial %d: the zombie %s is gone", trial, child).isTrue();
    }
  }

  /** Whether {@code child}'s pid names another process or none within 2 s: it was reaped. */
  private static boolean awaitReaped(SupervisedProcess child) {
    return Await.within(
        Duration.ofSeconds(2),
        () ->
            ProcFs.stat(child.pid())
                .map(p -> p.startTime() != child.identity().startTime())
                .orElse(true));
  }

  private static boolean isZombie(long pid) {
    return ProcFs.stat(pid).map(p -> p.state() == ProcessState.ZOMBIE).orElse(false);
  }

  @Test
  void exitCollectionNeverStealsTheJdksChildren() throws Exception {
    Process jdkChild = new ProcessBuilder("/bin/sh", "-c", "exit 7").start();
    try {
      SupervisedProcess ours = children.sh("exit 5");
      assertThat(ours.waitFor()).isEqualTo(5);
      assertThat(jdkChild.waitFor(5, TimeUnit.SECONDS)).isTrue();
      assertThat(jdkChild.exitValue()).isEqualTo(7);
    } finally {
      jdkChild.destroyForcibly();
    }
  }
}
