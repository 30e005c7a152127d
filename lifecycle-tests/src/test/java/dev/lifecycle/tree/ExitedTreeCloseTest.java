package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.cgroup.Cgroups;
import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.OwnedCgroups;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.ForwardingPlatform;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.tree.TerminationReport.Stage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Closing a tree whose leader already exited (the common end of a CLI's child) does only the work
 * its tier needs for the proof: in the CGROUP tier {@code populated 0} is the kernel's proof and no
 * process table is read at all; in the SESSION tier one scan with the cookie search, not three. The
 * report stays what it was: ALREADY_GONE, nothing signalled, complete exactly when nothing was
 * unprovable. (Speed is in {@code WholeProcessHarness}; this pins the work, not the time.)
 */
@NoProcessLeaks
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExitedTreeCloseTest {
  private static final Duration BOUND = Duration.ofSeconds(15);
  @RegisterExtension final TreeReaper reaper = new TreeReaper();

  @Test
  void anExitedCgroupTreeClosesWithoutReadingTheProcessTable() throws Exception {
    Cgroups.writableParentOrSkip();
    CountingPlatform platform = new CountingPlatform(ProcessPlatform.get());
    ProcessTree tree = exitedTree(platform, Containment.Mode.REQUIRE_CGROUP);
    assertThat(tree.tier()).isEqualTo(ContainmentTier.CGROUP);
    Cgroup cgroup = Cgroup.at(tree.cgroup().orElseThrow());
    platform.reads.set(0);

    TerminationReport report = tree.terminate();

    System.out.println(report);
    assertThat(platform.reads.get()).as("process-table and environment reads").isZero();
    assertThat(report.tier()).isEqualTo(ContainmentTier.CGROUP);
    assertThat(report.endedBy()).isEqualTo(Stage.ALREADY_GONE);
    assertThat(report.terminated()).isEmpty();
    assertThat(report.killed()).isEmpty();
    assertThat(report.isComplete()).isTrue();
    assertThat(report.unprovable()).isEmpty();
    assertThat(platform.probe(tree.leaderIdentity())).isNotEqualTo(Liveness.ALIVE);
    Await.until(BOUND, "cgroup removed", cgroup::exists, exists -> !exists);
  }

  @Test
  void anExitedSessionTreeClosesWithOneScanThatIncludesTheCookieSearch() throws Exception {
    CountingPlatform platform = new CountingPlatform(ProcessPlatform.get());
    ProcessTree tree = exitedTree(platform, Containment.Mode.SESSION);
    assertThat(tree.tier()).isEqualTo(ContainmentTier.SESSION);
    platform.snapshots.set(0);
    platform.reads.set(0);

    TerminationReport report = tree.terminate();

    System.out.println(report);
    assertThat(platform.snapshots.get()).as("process-table snapshots").isEqualTo(1);
    assertThat(report.tier()).isEqualTo(ContainmentTier.SESSION);
    assertThat(report.endedBy()).isEqualTo(Stage.ALREADY_GONE);
    assertThat(report.terminated()).isEmpty();
    assertThat(report.killed()).isEmpty();
    // Never complete in this tier: the blind spot comes first; the one scan searched the cookie and
    // names what else it could not rule out, and only then was a suspect seen.
    assertThat(report.isComplete()).isFalse();
    assertThat(report.unprovable()).first().isEqualTo(TerminationReport.SESSION_BLIND_SPOT);
    assertThat(report.noSurvivorSeen()).isEqualTo(report.unprovable().size() == 1);
    assertThat(platform.probe(tree.leaderIdentity())).isNotEqualTo(Liveness.ALIVE);
  }

  /**
   * What docs/TROUBLESHOOTING.md tells users: an exited leader stays a zombie child of this JVM, so
   * its pid and group id cannot be reused, until the tree is closed; closing reaps it.
   */
  @Test
  void anExitedLeaderStaysAZombieOfThisJvmUntilTheTreeIsClosed() throws Exception {
    ProcessTree tree =
        exitedTree(new CountingPlatform(ProcessPlatform.get()), Containment.Mode.SESSION);
    long pid = tree.leader().pid();
    assertThat(DetachedTreeTest.zombieOfThisJvm(pid)).as("the exited leader, held").isTrue();

    tree.close();

    assertThat(DetachedTreeTest.zombieOfThisJvm(pid)).as("the leader, after close").isFalse();
  }

  /**
   * The safety net behind the asynchronous removal: at JVM exit every tracked cgroup that is empty
   * is removed, and a populated one is left to its processes (the kernel refuses it anyway).
   */
  @Test
  void pendingCgroupsAreRemovedAtExitUnlessPopulated() throws Exception {
    Cgroup parent = Cgroups.writableParentOrSkip();
    ProcessIdentity self = ProcessPlatform.get().self();
    Cgroup empty = parent.createChild(OwnedCgroups.newName(self.pid(), self.startTime()));
    Cgroup busy = parent.createChild(OwnedCgroups.newName(self.pid(), self.startTime()));
    Process sleeper = new ProcessBuilder("sleep", "30").start();
    try {
      busy.enter(sleeper.pid());
      CgroupRemoval.track(empty);
      CgroupRemoval.track(busy);

      CgroupRemoval.finishPending();

      assertThat(empty.exists()).isFalse();
      assertThat(busy.exists()).isTrue();
    } finally {
      sleeper.destroyForcibly();
      sleeper.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS);
      Await.until(BOUND, "the emptied cgroup removed", () -> removed(busy));
      removed(empty);
    }
  }

  private static boolean removed(Cgroup cgroup) {
    try {
      return CgroupRemoval.remove(cgroup);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A tree of {@code /bin/true} spawned in {@code mode}, once its leader has exited. */
  private ProcessTree exitedTree(CountingPlatform platform, Containment.Mode mode)
      throws Exception {
    ProcessTree tree =
        reaper.track(
            ProcessTree.spawn(
                platform,
                new ProcessBuilder("/bin/true"),
                TreeOptions.defaults().withContainment(mode)));
    assertThat(tree.leader().waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
    return tree;
  }

  /** The real platform, counting the reads that cost a walk over every process. */
  static final class CountingPlatform extends ForwardingPlatform {
    final AtomicInteger snapshots = new AtomicInteger();
    final AtomicInteger reads = new AtomicInteger(); // snapshots and environment searches

    CountingPlatform(ProcessPlatform real) {
      super(real);
    }

    @Override
    public ProcessTable snapshot() {
      snapshots.incrementAndGet();
      reads.incrementAndGet();
      return real.snapshot();
    }

    @Override
    public Set<Long> findByEnvironment(String name, String value) {
      reads.incrementAndGet();
      return real.findByEnvironment(name, value);
    }

    @Override
    public Set<Long> findByEnvironment(String name, String value, Collection<Long> candidates) {
      reads.incrementAndGet();
      return real.findByEnvironment(name, value, candidates);
    }
  }
}
