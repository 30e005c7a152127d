package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.UnsafeSignalException;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.time.Limit;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The guards: identity before every signal, never a group that is not the tree's own. */
@NoProcessLeaks
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TreeSafetyTest {
  // Identity checks before each signal are the SESSION tier's defence against pid reuse; in the
  // CGROUP tier the kernel's membership replaces them.
  private static final TreeOptions SESSION =
      TreeOptions.defaults().withContainment(dev.lifecycle.process.Containment.Mode.SESSION);

  private static final Duration GRACE = Duration.ofMillis(300);
  private static final Duration WAITED_FOR = Duration.ofSeconds(40);
  @RegisterExtension final TreeReaper reaper = new TreeReaper();

  static Stream<ProcessPlatform> platforms() {
    return ProcessTreeTest.platforms();
  }

  private ProcessTree spawn(ScriptedPlatform scripted, ProcessBuilder builder, TreeOptions options)
      throws Exception {
    return reaper.track(ProcessTree.spawn(scripted, builder, options));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("platforms")
  void aProcessWhoseIdentityDoesNotMatchIsNeverSignalled(ProcessPlatform platform)
      throws Exception {
    ScriptedPlatform scripted = new ScriptedPlatform(platform, false);
    ProcessTree tree =
        spawn(scripted, Adversaries.setsidEscapee(), SESSION.withVerifyTimeout(WAITED_FOR));
    TreeView view =
        Await.until(
            Duration.ofSeconds(10),
            "the setsid sleep as the one escapee",
            tree::view,
            // Not a transient: util-linux setsid forks when it starts as a group leader, and for
            // a moment that short-lived parent is the process outside the tree's group.
            v ->
                v.escapees().size() == 1
                    && v.escapees().get(0).command().equals("sleep")
                    && v.escapees().get(0).sessionId() == v.escapees().get(0).pid());
    ProcessIdentity escapee = view.escapees().get(0).identity();
    reaper.track(escapee);
    scripted.misidentify(escapee.pid()); // as if the pid now named another process

    TerminationReport report = tree.terminate(GRACE);

    System.out.println(platform.capabilities().platform() + ": " + report);
    assertThat(report.skipped()).extracting(ProcessIdentity::pid).containsExactly(escapee.pid());
    assertThat(report.terminated()).doesNotContain(escapee.pid());
    assertThat(report.killed()).doesNotContain(escapee.pid());
    assertThat(platform.probe(escapee)).isEqualTo(Liveness.ALIVE);
    // Skipped, not waited for: waiting would last the whole verify timeout.
    assertThat(report.elapsed()).isLessThan(WAITED_FOR.dividedBy(2));
    List<ProcessIdentity> others = view.members().stream().map(TreeMember::identity).toList();
    assertThat(others).allMatch(Await::isGone);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("platforms")
  void aMemberThatLeavesTheGroupJustBeforeItsSigkillIsKilledByItself(ProcessPlatform platform)
      throws Exception {
    // The member ignores TERM and, on USR1, becomes `setsid sleep` in place (same pid, own
    // session). The USR1 goes out right before the group SIGKILL: the last scan saw the member in
    // the group, so the group signal was its only SIGKILL, and it missed it.
    ScriptedPlatform scripted = new ScriptedPlatform(platform, false);
    ProcessTree tree =
        spawn(
            scripted,
            new ProcessBuilder(
                "sh",
                "-c",
                "trap '' TERM; sh -c 'trap \"exec setsid sleep 300\" USR1;"
                    + " while :; do sleep 0.05; done' & wait"),
            SESSION);
    TreeView view =
        Await.until(
            Duration.ofSeconds(10),
            "the leader and its member shell",
            tree::view,
            v -> v.members().stream().filter(m -> m.command().equals("sh")).count() == 2);
    long groupId = tree.leader().pid();
    TreeMember member =
        view.members().stream()
            .filter(m -> m.command().equals("sh") && m.pid() != groupId)
            .findFirst()
            .orElseThrow();
    reaper.track(member.identity());
    scripted.beforeGroupKill(
        () -> {
          platform.signal(member.identity(), Signal.USR1);
          Await.until(
              Duration.ofSeconds(10),
              "the member left the group",
              () -> ProcFs.stat(member.pid()).map(r -> r.pgid() != groupId).orElse(true));
        });

    TerminationReport report = tree.terminate(GRACE);

    System.out.println(platform.capabilities().platform() + ": " + report);
    assertThat(Await.isGone(member.identity())).as("the member that left the group").isTrue();
    assertThat(report.survivors()).isEmpty();
    assertThat(report.killed()).contains(member.pid());
    assertThat(report.noSurvivorSeen()).as(report.toString()).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("platforms")
  void aTreeSharingTheJvmGroupIsNeverSignalledAsAGroup(ProcessPlatform platform) throws Exception {
    ScriptedPlatform scripted = new ScriptedPlatform(platform, true);
    ProcessTree tree = spawn(scripted, Adversaries.politeTree(2), SESSION);
    assertThat(tree.processGroupId()).isEqualTo(-1);
    assertThat(tree.usesGroupSignals()).isFalse();
    List<ProcessIdentity> all =
        Await.until(Duration.ofSeconds(10), "3 processes", tree::view, v -> v.all().size() == 3)
            .all()
            .stream()
            .map(TreeMember::identity)
            .toList();

    TerminationReport report = tree.terminate(GRACE);

    assertThat(scripted.groupSignals).isEmpty();
    assertThat(report.processGroupId()).isEqualTo(-1);
    assertThat(all).allMatch(Await::isGone);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("platforms")
  void groupsThatAreNeverOursAreRefusedBeforeAnySystemCall(ProcessPlatform platform) {
    // CONT, so that a broken guard would do no harm to this JVM's group.
    for (long pgid : new long[] {-1, 0, 1, platform.selfProcessGroup()}) {
      assertThatThrownBy(() -> platform.signalGroup(pgid, Signal.CONT))
          .isInstanceOf(UnsafeSignalException.class);
    }
    assertThatThrownBy(() -> platform.signal(ProcessIdentity.ofPid(1), Signal.CONT))
        .isInstanceOf(UnsafeSignalException.class);
  }

  @Test
  void optionsRejectNegativeDurationsAndClampHugeOnes() {
    assertThatThrownBy(() -> TreeOptions.defaults().withGrace(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(TreeOptions.defaults().withGrace(Duration.ofSeconds(Long.MAX_VALUE)).grace())
        .isEqualTo(Limit.MAX);
    assertThat(TreeOptions.defaults().withGrace(Duration.ZERO).grace()).isZero();
  }
}
