package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.procfs.ProcLiveness;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code /proc}-only probe (what a client uses before any native code is loaded) gives the
 * native platform's answers: for every process on the machine, a zombie, a gone pid and a reused
 * identity.
 */
class ProcLivenessAgreementTest {
  private static final PosixPlatform PLATFORM = Children.PLATFORM;
  private final Children children = new Children();

  @AfterEach
  void cleanUp() throws InterruptedException {
    children.close();
  }

  @Test
  void procfsIsExactHere() {
    assertThat(ProcLiveness.isExact()).isTrue();
  }

  @Test
  void agreesWithTheNativeProbeOnEveryProcess() {
    List<String> disagreements = new ArrayList<>();
    int compared = 0;
    for (ProcessInfo row : PLATFORM.snapshot().all()) {
      long pid = row.pid();
      Liveness before = PLATFORM.probe(pid);
      Liveness procfs = ProcLiveness.probe(pid);
      Liveness after = PLATFORM.probe(pid);
      if (before != after) {
        continue; // changed while we looked: no stable answer to compare with
      }
      compared++;
      if (procfs != before) {
        disagreements.add(pid + " " + row.command() + ": native " + before + ", /proc " + procfs);
      }
    }
    assertThat(compared).isGreaterThan(1);
    assertThat(disagreements).isEmpty();
  }

  @Test
  void aZombieAGonePidAndAReusedIdentity() throws Exception {
    SupervisedProcess child = children.sh("sleep 0.05 & exec sleep 30");
    long zombie =
        Children.eventually(5000, () -> zombieChildOf(child.pid()).isPresent())
            ? zombieChildOf(child.pid()).orElseThrow()
            : -1;
    assertThat(zombie).isPositive();
    assertThat(ProcLiveness.probe(zombie)).isEqualTo(Liveness.GONE);
    assertThat(ProcLiveness.probe(ProcessIdentity.ofPid(zombie))).isEqualTo(Liveness.GONE);
    assertThat(ProcLiveness.probe(child.pid())).isEqualTo(Liveness.ALIVE);
    assertThat(ProcLiveness.probe(Integer.MAX_VALUE)).isEqualTo(Liveness.GONE);

    ProcessIdentity real = child.identity();
    ProcessIdentity earlier = new ProcessIdentity(real.pid(), real.startTime() - 1, real.bootId());
    assertThat(ProcLiveness.probe(real)).isEqualTo(Liveness.ALIVE);
    assertThat(ProcLiveness.probe(earlier)).isEqualTo(PLATFORM.probe(earlier));
    assertThat(ProcLiveness.probe(earlier)).isEqualTo(Liveness.ALIVE_NOT_OURS);
  }

  private static Optional<Long> zombieChildOf(long pid) {
    return PLATFORM.snapshot().children(pid).stream()
        .filter(ProcessInfo::hasExited)
        .map(ProcessInfo::pid)
        .findFirst();
  }
}
