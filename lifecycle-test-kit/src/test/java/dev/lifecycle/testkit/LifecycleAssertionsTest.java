package dev.lifecycle.testkit;

import static dev.lifecycle.testkit.LifecycleAssertions.assertThat;
import static dev.lifecycle.testkit.LifecycleAssertions.assertThatPid;
import static dev.lifecycle.testkit.LifecycleAssertions.assertThatPids;
import static dev.lifecycle.testkit.LifecycleAssertions.assertThatTree;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SupervisedProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@NoProcessLeaks(linger = "1s")
class LifecycleAssertionsTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration LONG = Duration.ofSeconds(60);
  private final ProcessPlatform platform = ProcessPlatform.get();

  @Test
  void exitsWithinFailsWithPidStateAndCommand() throws Exception {
    FixtureChild child = FixtureChild.of(FixtureScript.create().ready().sleep(LONG));
    Process p = child.start();
    try {
      FixtureChild.awaitReady(p, WAIT);
      assertThatThrownBy(() -> assertThat(p).exitsWithin(Duration.ofMillis(100)))
          .hasMessageContaining("pid " + p.pid())
          .hasMessageContaining("SLEEPING")
          .hasMessageContaining("sleep 60")
          .hasMessageContaining("still running");
      assertThatThrownBy(() -> assertThatPid(p.pid()).exitsWithin(Duration.ofMillis(50)))
          .hasMessageContaining("pid " + p.pid());
    } finally {
      child.killAll(WAIT);
    }
    assertThat(p).exitsWithin(WAIT).withExitCode(128 + 9);
  }

  @Test
  void withExitCodeNamesTheSignalAndRefusesUnknownCodes() throws Exception {
    Process p = FixtureChild.of(FixtureScript.create().exit(3)).start();
    assertThatThrownBy(() -> assertThat(p).exitsWithin(WAIT).withExitCode(0))
        .hasMessageContaining("exit with code 0, but it exited with 3");
    assertThatThrownBy(() -> assertThat(p.toHandle()).exitsWithin(WAIT).withExitCode(3))
        .hasMessageContaining("exit code is unknown");
  }

  @Test
  void treeIsEmptyByGroupSessionAndCookie() throws Exception {
    FixtureChild child = sleeperWithTwoChildren();
    SupervisedProcess p = child.spawn(platform);
    try {
      FixtureChild.awaitReady(p, WAIT);
      assertThatThrownBy(() -> assertThatTree(child.tree()).isEmptyWithin(Duration.ofMillis(100)))
          .hasMessageContaining("3 still run");
      if (p.processGroupId() > 0) {
        assertThatThrownBy(
                () ->
                    assertThatTree(TreeSelector.group(p.processGroupId()))
                        .isEmptyWithin(Duration.ofMillis(50)))
            .hasMessageContaining("process group " + p.processGroupId());
      }
    } finally {
      child.killAll(WAIT);
    }
    LifecycleAssertions.treeIsEmpty(child.tree(), WAIT);
    if (p.processGroupId() > 0) {
      assertThatTree(TreeSelector.session(p.processGroupId())).isEmptyWithin(WAIT);
    }
  }

  @Test
  void doesNotSpinFailsForASpinningGrandchildAndPassesForSleepers() throws Exception {
    FixtureChild spinner =
        FixtureChild.of(
            FixtureScript.create()
                .spawn(1, FixtureScript.create().spin())
                .spawn(1, FixtureScript.create().sleep(LONG))
                .ready()
                .sleep(LONG));
    SupervisedProcess p = spinner.spawn(platform);
    try {
      FixtureChild.awaitReady(p, WAIT);
      // 2% of a core: even at load average 30 on 2 cores a spinner gets about 6%.
      assertThatThrownBy(() -> assertThatTree(p.pid()).doesNotSpin(Duration.ofSeconds(1), 0.02))
          .hasMessageContaining("of a core")
          .hasMessageContaining("fixture.sh spin");
      assertThatThrownBy(() -> LifecycleAssertions.assertNoSpin(Duration.ofMillis(500), 0.02))
          .hasMessageContaining("descendants of this JVM");
    } finally {
      spinner.killAll(WAIT);
    }
    FixtureChild sleeper = sleeperWithTwoChildren();
    SupervisedProcess q = sleeper.spawn(platform);
    try {
      FixtureChild.awaitReady(q, WAIT);
      assertThatTree(q.pid()).doesNotSpin(Duration.ofMillis(500), 0.2);
    } finally {
      sleeper.killAll(WAIT);
    }
  }

  @Test
  void areAllGoneCountsZombiesAsGone(@TempDir Path dir) throws Exception {
    // The double-forked grandchild exits soon and may stay a zombie under PID 1 for ~2 s.
    Path pids = dir.resolve("pids");
    FixtureChild child =
        FixtureChild.builder(
                FixtureScript.create()
                    .doubleFork(FixtureScript.create().sleep(Duration.ofMillis(100)))
                    .exit(0))
            .pidFile(pids)
            .build();
    Process p = child.start();
    List<Long> all = FixtureChild.awaitPids(pids, 2, WAIT);
    assertThatPids(Set.copyOf(all)).areAllGone(Duration.ofSeconds(1));
  }

  @Test
  void cpuSamplerRejectsWindowsBelowTickResolution() {
    assertThatThrownBy(
            () ->
                CpuSampler.sample(
                    TreeSelector.descendantsOfThisJvm(), Duration.ofMillis(50), platform))
        .hasMessageContaining("10 ms ticks");
  }

  @Test
  void softAssertionsCollectEveryFailureInsteadOfStoppingAtTheFirst() throws Exception {
    Process three = FixtureChild.of(FixtureScript.create().exit(3)).start();
    Process zero = FixtureChild.of(FixtureScript.create().exit(0)).start();
    LifecycleSoftAssertions softly = new LifecycleSoftAssertions();
    softly.assertThat(three).exitsWithin(WAIT).withExitCode(0);
    softly.assertThat(zero).exitsWithin(WAIT).withExitCode(1);
    softly.assertThatPids(List.of(zero.pid(), three.pid())).areAllGone(WAIT);
    softly.assertThat(zero.toHandle()).exitsWithin(WAIT).withExitCode(0);
    Assertions.assertThat(softly.errorsCollected())
        .hasSize(3)
        .anySatisfy(e -> Assertions.assertThat(e).hasMessageContaining("exited with 3"))
        .anySatisfy(e -> Assertions.assertThat(e).hasMessageContaining("exited with 0"))
        .anySatisfy(e -> Assertions.assertThat(e).hasMessageContaining("exit code is unknown"));
  }

  @Test
  void doesNotSpinInTotalJudgesTheWholeTreeWhereMembersPassOneByOne() throws Exception {
    FixtureChild spinners =
        FixtureChild.of(
            FixtureScript.create().spawn(2, FixtureScript.create().spin()).ready().sleep(LONG));
    SupervisedProcess p = spinners.spawn(platform);
    try {
      FixtureChild.awaitReady(p, WAIT);
      // A single-threaded member can never use more than one core: per member this passes.
      assertThatTree(p.pid()).doesNotSpin(Duration.ofSeconds(1), 1.5);
      // Two busy members together: above 2% of a core even at load average 30 on 2 cores.
      assertThatThrownBy(
              () -> assertThatTree(p.pid()).doesNotSpinInTotal(Duration.ofSeconds(1), 0.02))
          .hasMessageContaining("in total")
          .hasMessageContaining("fixture.sh spin");
    } finally {
      spinners.killAll(WAIT);
    }
  }

  /** A fixture that starts two sleeping children, reports ready and sleeps: three sleepers. */
  private static FixtureChild sleeperWithTwoChildren() {
    return FixtureChild.of(
        FixtureScript.create().spawn(2, FixtureScript.create().sleep(LONG)).ready().sleep(LONG));
  }
}
