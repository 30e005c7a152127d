package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.internal.DetachMarks;
import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Closing a detached tree leaves it running and releases its leader: once the leader exits it is
 * reaped, so the tree holds no pid of this JVM, and a later termination no longer trusts the group
 * id the leader pinned.
 */
@NoProcessLeaks
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DetachedTreeTest {
  private static final Duration BOUND = Duration.ofSeconds(15);
  private static final ProcessPlatform PLATFORM = ProcessPlatform.get();

  @RegisterExtension final TreeReaper reaper = new TreeReaper();
  @TempDir Path marks;

  @BeforeEach
  void markHere() {
    System.setProperty(DetachMarks.DIR_PROPERTY, marks.toString());
  }

  @AfterEach
  void unmark() {
    System.clearProperty(DetachMarks.DIR_PROPERTY);
  }

  static Stream<Containment.Mode> tiers() {
    return Containment.of(Containment.Mode.AUTO).tier() == ContainmentTier.CGROUP
        ? Stream.of(Containment.Mode.SESSION, Containment.Mode.REQUIRE_CGROUP)
        : Stream.of(Containment.Mode.SESSION);
  }

  @ParameterizedTest
  @MethodSource("tiers")
  void aClosedDetachedTreesLeaderIsReapedOnceItExits(Containment.Mode mode) throws Exception {
    ProcessTree tree = released(spawn(mode, "sleep", "0.5"));
    assertThat(tree.leader().isAlive()).as("close leaves a detached tree running").isTrue();

    awaitLeaderReaped(tree);
  }

  @ParameterizedTest
  @MethodSource("tiers")
  void terminateAfterADetachedCloseEndsWhatIsLeftWithoutTheGroupId(Containment.Mode mode)
      throws Exception {
    // The leader leaves a child behind in its group and exits; the child is what a daemon is.
    ProcessTree tree = spawn(mode, "sh", "-c", "sleep 60 & exec sleep 0.3");
    long leaderPid = tree.leader().pid();
    TreeMember child =
        Await.until(
                BOUND,
                "the leader's child",
                () -> tree.view().all().stream().filter(m -> m.pid() != leaderPid).findFirst(),
                Optional::isPresent)
            .orElseThrow();
    awaitLeaderReaped(released(tree));
    assertThat(PLATFORM.probe(child.identity())).isEqualTo(Liveness.ALIVE);

    TerminationReport report = tree.terminate(Duration.ofSeconds(5));

    System.out.println(report);
    assertThat(report.noSurvivorSeen()).as(report.toString()).isTrue();
    Await.until(BOUND, "the child ended", () -> PLATFORM.probe(child.identity()) != Liveness.ALIVE);
    if (mode == Containment.Mode.SESSION) {
      assertThat(report.processGroupId())
          .as("no group signal after the leader was reaped")
          .isEqualTo(-1);
      assertThat(report.terminated()).contains(child.pid());
    }
  }

  @ParameterizedTest
  @MethodSource("tiers")
  void aReleasedLeaderEndedByATerminationIsReapedByIt(Containment.Mode mode) throws Exception {
    // The leader exits while the termination holds the pin, so the release's own reap stands back.
    ProcessTree tree = released(spawn(mode, "sleep", "60"));
    long pid = tree.leader().pid();

    TerminationReport report = tree.terminate(Duration.ofSeconds(5));

    assertThat(report.noSurvivorSeen()).as(report.toString()).isTrue();
    assertThat(zombieOfThisJvm(pid)).as("the leader reaped when terminate returns").isFalse();
  }

  private ProcessTree spawn(Containment.Mode mode, String... command) throws Exception {
    return reaper.track(
        ProcessTree.spawn(
            PLATFORM, new ProcessBuilder(command), TreeOptions.defaults().withContainment(mode)));
  }

  /** Detaches {@code tree}, then closes it: what releases its leader. */
  private static ProcessTree released(ProcessTree tree) throws Exception {
    tree.detach();
    tree.close();
    return tree;
  }

  /** Until the leader has exited and no zombie of this JVM is left at its pid. */
  private static void awaitLeaderReaped(ProcessTree tree) {
    long pid = tree.leader().pid();
    ProcessIdentity leader = tree.leaderIdentity();
    Await.until(
        BOUND,
        "leader " + leader + " exited and reaped",
        () -> !tree.leader().isAlive() && !zombieOfThisJvm(pid));
  }

  /** Whether {@code pid} is a zombie child of this JVM: an exited leader nobody reaped. */
  static boolean zombieOfThisJvm(long pid) {
    long self = PLATFORM.self().pid();
    return PLATFORM.info(pid).filter(r -> r.hasExited() && r.ppid() == self).isPresent();
  }
}
