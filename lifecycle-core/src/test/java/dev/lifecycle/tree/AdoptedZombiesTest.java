package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessState;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.testing.ForwardingPlatform;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The reaping of a tree's zombies by a JVM that is PID 1, over process tables in the order the
 * kernel can show them. The kernel takes a dying process out of its cgroup before it hands that
 * process's children to the JVM, so right after a termination the tree's cgroup can read empty
 * while a zombie of the tree is still the child of its exiting parent. That window lasts
 * microseconds and cannot be opened on demand with real processes; {@code Pid1ReapingTest} runs the
 * whole path for real.
 */
class AdoptedZombiesTest {
  private static final String BOOT = "boot";
  private static final long TREE_SESSION = 20;
  private static final long ESCAPEE = 24;

  @Test
  void aZombieStillHeldByItsExitingParentIsReapedOnceHandedToTheJvm() {
    // The tree's leader is exiting (its row still reads alive); the escapee it started died first.
    ProcessInfo exitingLeader = row(TREE_SESSION, 1, TREE_SESSION, ProcessState.RUNNING);
    ProcessInfo escapeeHeld = row(ESCAPEE, TREE_SESSION, ESCAPEE, ProcessState.ZOMBIE);
    ProcessInfo escapeeAdopted = row(ESCAPEE, 1, ESCAPEE, ProcessState.ZOMBIE);
    TablesAsPid1 platform =
        new TablesAsPid1(List.of(exitingLeader, escapeeHeld), List.of(escapeeAdopted));

    int reaped =
        AdoptedZombies.reap(
            platform, TREE_SESSION, completeReportWithEscapee(escapeeHeld), Set.of());

    assertThat(reaped).isEqualTo(1);
    assertThat(platform.reapedIdentities).containsExactly(escapeeAdopted.identity(BOOT));
  }

  @Test
  void aZombieWhoseParentIsNotOfTheTreeIsLeftToThatParentWithoutWaiting() {
    ProcessInfo foreignParent = row(30, 1, 30, ProcessState.SLEEPING);
    ProcessInfo escapee = row(ESCAPEE, 30, ESCAPEE, ProcessState.ZOMBIE);
    TablesAsPid1 platform = new TablesAsPid1(List.of(foreignParent, escapee));

    int reaped =
        AdoptedZombies.reap(platform, TREE_SESSION, completeReportWithEscapee(escapee), Set.of());

    assertThat(reaped).isZero();
    assertThat(platform.reapedIdentities).isEmpty();
    assertThat(platform.snapshots).as("one pass: nothing of the tree is left to wait for").isOne();
  }

  private static ProcessInfo row(long pid, long ppid, long sid, ProcessState state) {
    return new ProcessInfo(pid, ppid, sid, sid, 1000 + pid, state, Duration.ZERO, "sleep", 0);
  }

  private static TerminationReport completeReportWithEscapee(ProcessInfo escapee) {
    return new TerminationReport(
        TerminationReport.Stage.KILL,
        TREE_SESSION,
        Set.of(TREE_SESSION, escapee.pid()),
        Set.of(TREE_SESSION, escapee.pid()),
        List.of(TreeMember.of(escapee, BOOT, Set.of(Discovery.PARENTAGE))),
        List.of(),
        List.of(),
        List.of(),
        Duration.ofMillis(10),
        ContainmentTier.CGROUP,
        "test",
        List.of(),
        "20 sleep",
        Optional.empty());
  }

  /**
   * The JVM as PID 1 over scripted tables, one per snapshot (the last one repeats); records what it
   * is asked to reap and reaps only children of PID 1.
   */
  private static final class TablesAsPid1 extends ForwardingPlatform {
    private final Deque<List<ProcessInfo>> tables = new ArrayDeque<>();
    private ProcessTable last;
    final List<ProcessIdentity> reapedIdentities = new ArrayList<>();
    int snapshots;

    @SafeVarargs
    TablesAsPid1(List<ProcessInfo>... tables) {
      super(ProcessPlatform.jdk());
      this.tables.addAll(List.of(tables));
    }

    @Override
    public ProcessIdentity self() {
      return new ProcessIdentity(1, 1, BOOT);
    }

    @Override
    public ProcessTable snapshot() {
      snapshots++;
      if (!tables.isEmpty()) {
        last = ProcessTable.of(tables.poll(), BOOT, System.nanoTime());
      }
      return last;
    }

    @Override
    public boolean reapAdopted(ProcessIdentity zombie) {
      Optional<ProcessInfo> now = last.get(zombie.pid());
      if (now.isEmpty() || now.get().ppid() != 1 || now.get().state() != ProcessState.ZOMBIE) {
        return false;
      }
      reapedIdentities.add(zombie);
      return true;
    }
  }
}
