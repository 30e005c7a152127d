package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.procfs.ProcLiveness;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code /proc}-only probe (what a client uses before any native code is loaded) gives the
 * native platform's answers: for every process on the machine, a zombie, a gone pid and a reused
 * identity.
 */
class ProcLivenessAgreementTest {
  private static final PosixPlatform PLATFORM = Children.PLATFORM;
  @RegisterExtension final Children children = new Children();

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
    Children.Zombie grandchild = children.zombieGrandchild();
    SupervisedProcess child = grandchild.parent();
    long zombie = grandchild.pid();
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
}
