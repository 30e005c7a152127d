package dev.lifecycle.posix;

import static dev.lifecycle.posix.Children.PLATFORM;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessState;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link PosixPlatform#reapAdopted} refuses everything that is not an adopted zombie: the
 * platform's own unreaped child (its exit value stays its own), a zombie whose parent is another
 * process, a live JDK child, and a zombie named by a wrong identity. Reaping itself is proven as
 * PID 1 by {@code Pid1ReapingTest} in lifecycle-tests (this JVM adopts no orphans).
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ReapAdoptedTest {
  @RegisterExtension final Children children = new Children();

  @Test
  void ourOwnUnreapedChildIsLeftToItsProcess() throws Exception {
    SupervisedProcess child = children.spawnUnreaped(new ProcessBuilder("sh", "-c", "exit 7"));
    assertThat(Await.within(Duration.ofMillis(5000), () -> isZombie(child.pid()))).isTrue();

    assertThat(PLATFORM.reapAdopted(child.identity())).isFalse();
    assertThat(isZombie(child.pid())).isTrue(); // still there for its own process to collect
    assertThat(child.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).isEqualTo(7);
  }

  @Test
  void aZombieOfAnotherParentIsNotReaped() throws Exception {
    Children.Zombie zombie = children.zombieGrandchild();
    ProcessIdentity identity = PLATFORM.identify(zombie.pid()).orElseThrow();

    assertThat(PLATFORM.reapAdopted(identity)).isFalse();
    assertThat(isZombie(zombie.pid())).isTrue();
  }

  @Test
  void aLiveJdkChildOrAWrongIdentityIsRefused() throws Exception {
    Process jdkChild = new ProcessBuilder("sleep", "30").start();
    try {
      ProcessIdentity identity = PLATFORM.identify(jdkChild.pid()).orElseThrow();
      assertThat(PLATFORM.reapAdopted(identity)).isFalse();
      ProcessIdentity earlier =
          new ProcessIdentity(identity.pid(), identity.startTime() - 1, identity.bootId());
      assertThat(PLATFORM.reapAdopted(earlier)).isFalse();
      assertThat(jdkChild.isAlive()).isTrue();
    } finally {
      jdkChild.destroyForcibly();
      assertThat(jdkChild.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(jdkChild.exitValue()).isEqualTo(137);
  }

  private static boolean isZombie(long pid) {
    return ProcFs.stat(pid).map(p -> p.state() == ProcessState.ZOMBIE).orElse(false);
  }
}
