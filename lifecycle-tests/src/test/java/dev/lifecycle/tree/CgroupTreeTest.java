package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.Fixtures;
import dev.lifecycle.cgroup.Cgroups;
import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.tree.TerminationReport.Stage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CGROUP tier against real adversaries on both platforms: escapes that the SESSION tier cannot
 * see (setsid + cleared environment, a rewritten environment area) are members, termination ends in
 * cgroup.kill and is proven by populated 0, and the cgroup is gone afterwards. The same adversaries
 * in SESSION tier must be reported as unprovable, never as complete.
 */
@NoProcessLeaks
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CgroupTreeTest {
  private static final Duration GRACE = Duration.ofMillis(300);
  private static final Duration BOUND = Duration.ofSeconds(15);
  private static final TreeOptions CGROUP =
      TreeOptions.defaults().withGrace(GRACE).withContainment(Containment.Mode.REQUIRE_CGROUP);
  private static final TreeOptions SESSION =
      TreeOptions.defaults().withGrace(GRACE).withContainment(Containment.Mode.SESSION);

  @RegisterExtension final TreeReaper reaper = new TreeReaper();
  @TempDir Path dir;

  static Stream<ProcessPlatform> platforms() {
    return Stream.of(ProcessPlatform.get(), ProcessPlatform.jdk()).distinct();
  }

  @BeforeEach
  void needsTheCgroupTier() {
    Cgroups.writableParentOrSkip();
  }

  private ProcessTree spawn(ProcessPlatform platform, ProcessBuilder builder, TreeOptions options)
      throws IOException {
    return reaper.track(ProcessTree.spawn(platform, builder, options));
  }

  private static TreeView awaitView(ProcessTree tree, String what, Predicate<TreeView> done) {
    return Await.until(BOUND, what, tree::view, done);
  }

  private static void assertGone(ProcessTree tree, TreeView seen) {
    for (TreeMember m : seen.all()) {
      assertThat(Await.isGone(m.identity())).as("%s gone", m).isTrue();
    }
    Cgroup cgroup = Cgroup.at(tree.cgroup().orElseThrow());
    Await.until(BOUND, "cgroup removed", cgroup::exists, exists -> !exists);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("platforms")
  void aTermTrappingTreeEndsByCgroupKillProvenEmpty(ProcessPlatform platform) throws Exception {
    ProcessTree tree = spawn(platform, Adversaries.trappingTree(4), CGROUP);
    assertThat(tree.tier()).isEqualTo(ContainmentTier.CGROUP);
    TreeView view = awaitView(tree, "4 members", v -> v.members().size() == 4);
    assertThat(view.members()).allMatch(m -> m.foundBy().contains(Discovery.CGROUP));

    TerminationReport report = tree.terminate(GRACE);

    System.out.println(platform.capabilities().platform() + ": " + report);
    assertThat(report.tier()).isEqualTo(ContainmentTier.CGROUP);
    assertThat(report.endedBy()).isEqualTo(Stage.KILL);
    assertThat(report.isComplete()).isTrue();
    assertThat(report.terminated())
        .containsAll(view.members().stream().map(TreeMember::pid).toList());
    assertThat(report.killed()).containsAll(view.members().stream().map(TreeMember::pid).toList());
    assertThat(report.toString()).contains("tier CGROUP").contains("leader " + tree.leader().pid());
    assertGone(tree, view);
  }

  /**
   * The escapes the SESSION tier cannot see: {@code env -i setsid -f} (no session, no parent, an
   * empty environment) and a daemon that rewrites its environment area for a title (as redis and
   * nginx do). Both start escaping a moment after the leader started, as real daemons do once they
   * read their configuration; an escape inside the cgroup entry window has a test of its own.
   */
  static Stream<String> invisibleEscapes() {
    return Stream.of("env-i-setsid", "titled-daemon");
  }

  private ProcessBuilder invisibleEscape(String kind, Path pidfile, String delay) {
    return switch (kind) {
      case "env-i-setsid" ->
          Adversaries.sh(delay + "env -i setsid -f sleep " + marker() + "; exec sleep 300");
      case "titled-daemon" ->
          Adversaries.sh(delay + Fixtures.titled() + " daemon " + pidfile + "; exec sleep 300");
      default -> throw new IllegalArgumentException(kind);
    };
  }

  private ProcessIdentity awaitPidfile(Path pidfile) {
    long pid = Await.until(BOUND, "pid file " + pidfile, () -> readPid(pidfile), p -> p > 0);
    ProcessIdentity id =
        Await.until(BOUND, "the escapee " + pid, () -> ProcFs.identity(pid), Optional::isPresent)
            .orElseThrow();
    reaper.track(id);
    return id;
  }

  private static long readPid(Path file) {
    try {
      String text = Files.readString(file).trim();
      return text.isEmpty() ? 0 : Long.parseLong(text);
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
  }

  /** A sleep duration unique to this test, so the escapee can be found by its command line. */
  private static String marker() {
    return "300." + (System.nanoTime() % 1_000_000);
  }

  private ProcessIdentity awaitEscapee(String kind, Path pidfile, ProcessBuilder builder) {
    if (kind.equals("titled-daemon")) {
      return awaitPidfile(pidfile);
    }
    String script = builder.command().get(2);
    String rest = script.substring(script.indexOf("setsid -f sleep ") + 16);
    String sleepArg = rest.substring(0, rest.indexOf(';'));
    ProcessIdentity id =
        Await.until(
                BOUND,
                "the env -i escapee",
                () ->
                    ProcFs.pids().stream()
                        .filter(
                            p ->
                                ProcFs.commandLine(p)
                                    .filter(c -> c.equals(List.of("sleep", sleepArg)))
                                    .isPresent())
                        .findFirst()
                        .flatMap(ProcFs::identity),
                Optional::isPresent)
            .orElseThrow();
    reaper.track(id);
    return id;
  }

  /** A tree spawned to run an {@link #invisibleEscape}, and the escapee it started. */
  private record Escape(ProcessTree tree, ProcessIdentity escapee) {}

  /**
   * Spawns the {@link #invisibleEscape} of {@code kind} (after {@code delay}) with {@code options}
   * and waits until its escapee runs.
   */
  private Escape spawnEscape(String kind, String delay, TreeOptions options) throws IOException {
    Path pidfile = dir.resolve("pid");
    ProcessBuilder builder = invisibleEscape(kind, pidfile, delay);
    ProcessTree tree = spawn(ProcessPlatform.get(), builder, options);
    return new Escape(tree, awaitEscapee(kind, pidfile, builder));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invisibleEscapes")
  void escapesTheSessionTierCannotSeeAreEndedInTheCgroupTier(String kind) throws Exception {
    Escape escape = spawnEscape(kind, "sleep 0.3; ", CGROUP);
    ProcessIdentity escapee = escape.escapee();
    TreeView view =
        awaitView(
            escape.tree(),
            "the escapee",
            v -> v.escapees().stream().anyMatch(m -> m.pid() == escapee.pid()));

    TerminationReport report = escape.tree().terminate(GRACE);

    System.out.println(kind + ": " + report);
    assertThat(report.isComplete()).isTrue();
    assertThat(report.escapees()).extracting(TreeMember::pid).contains(escapee.pid());
    assertThat(report.terminated()).contains(escapee.pid());
    if (kind.equals("titled-daemon")) {
      assertThat(report.killed()).contains(escapee.pid()); // it ignores TERM
    }
    assertThat(Await.isGone(escapee)).isTrue();
    assertGone(escape.tree(), view);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invisibleEscapes")
  void theSessionTierReportsTheSameEscapesAsUnprovable(String kind) throws Exception {
    Escape escape = spawnEscape(kind, "sleep 0.3; ", SESSION);
    assertThat(escape.tree().tier()).isEqualTo(ContainmentTier.SESSION);
    ProcessIdentity escapee = escape.escapee();
    // The escapee has left the session and lost its parent, and carries no readable cookie.
    Await.until(
        BOUND,
        "re-parented to init",
        () -> ProcFs.stat(escapee.pid()).map(r -> r.ppid()),
        p -> p.equals(Optional.of(1L)) || p.isEmpty());

    TerminationReport report = escape.tree().terminate(GRACE);

    System.out.println(kind + ": " + report);
    assertThat(report.tier()).isEqualTo(ContainmentTier.SESSION);
    assertThat(ProcessPlatform.get().probe(escapee))
        .as("the SESSION tier cannot see it, so it survives")
        .isEqualTo(dev.lifecycle.process.Liveness.ALIVE);
    assertThat(report.isComplete()).as("never complete while it cannot prove it").isFalse();
    assertThat(report.unprovable()).anyMatch(line -> line.startsWith(escapee.pid() + " "));
    assertThat(report.toString()).contains("NOT PROVEN").contains("INCOMPLETE");
    ProcessPlatform.get().signal(escapee, Signal.KILL);
  }

  /**
   * An escape as the leader's very first action can complete before the leader is moved into its
   * cgroup (posix_spawn returns after the exec, and a loaded machine may run the child first). The
   * entry check then moves it or cannot attribute it: the report must say so, and never call the
   * tree complete while the escapee runs.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("invisibleEscapes")
  void anEscapeInsideTheEntryWindowIsContainedOrReported(String kind) throws Exception {
    Escape escape = spawnEscape(kind, "", CGROUP);
    ProcessIdentity escapee = escape.escapee();

    TerminationReport report = escape.tree().terminate(GRACE);

    System.out.println(kind + ": " + report);
    boolean alive = ProcessPlatform.get().probe(escapee) == dev.lifecycle.process.Liveness.ALIVE;
    if (alive) {
      assertThat(report.isComplete()).isFalse();
      assertThat(report.unprovable()).anyMatch(line -> line.startsWith(escapee.pid() + ":"));
      ProcessPlatform.get().signal(escapee, Signal.KILL);
    } else {
      assertThat(report.isComplete()).isTrue();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("platforms")
  void aDescendantThatEscapesDuringTheGraceIsEnded(ProcessPlatform platform) throws Exception {
    Path escaped = Files.createTempDirectory("escape-").resolve("escaped");
    ProcessTree tree = spawn(platform, Adversaries.escapesOnTermThenExits(escaped), CGROUP);
    awaitView(tree, "2 members", v -> v.members().size() == 2);

    // A grace that outlasts the escape (fork, setsid, exec) even on a loaded machine: the kill
    // must find the descendant already outside the session.
    TerminationReport report = tree.terminate(Duration.ofSeconds(5));

    System.out.println(platform.capabilities().platform() + ": " + report);
    assertThat(report.isComplete()).isTrue();
    assertThat(report.endedBy()).isEqualTo(Stage.KILL); // the escapee ignores TERM
    assertThat(Files.exists(escaped)).as("the descendant escaped within the grace").isTrue();
    assertThat(report.escapees()).as("%s", report).hasSize(1);
    assertThat(Await.isGone(report.escapees().get(0).identity())).isTrue();
    assertThat(Files.exists(tree.cgroup().orElseThrow())).isFalse();
    Files.delete(escaped);
    Files.delete(escaped.getParent());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("platforms")
  void onExitFiresOnPopulatedZeroAndTheCgroupIsRemoved(ProcessPlatform platform) throws Exception {
    ProcessTree tree = spawn(platform, Adversaries.leaderExitsFirst(2, "1.5"), CGROUP);
    CompletableFuture<ProcessTree> treeExit = tree.onExit();
    tree.leader().onExit().get(10, TimeUnit.SECONDS);
    List<TreeMember> orphans = awaitView(tree, "2 orphans", v -> v.members().size() == 2).members();
    assertThat(treeExit).isNotDone();

    treeExit.get(10, TimeUnit.SECONDS);

    assertThat(orphans).allMatch(m -> Await.isGone(m.identity()));
    Await.until(BOUND, "cgroup removed", () -> Files.exists(tree.cgroup().orElseThrow()), e -> !e);
    assertThat(tree.terminate(GRACE).endedBy()).isEqualTo(Stage.ALREADY_GONE);
  }

  @Test
  void twoHundredTermTrappingProcessesEndWithinTheBound() throws Exception {
    ProcessTree tree = spawn(ProcessPlatform.get(), Adversaries.trappingTree(200), CGROUP);
    awaitView(tree, "200 members", v -> v.members().size() == 200);

    TerminationReport report = tree.terminate(GRACE);

    System.out.println(report);
    assertThat(report.endedBy()).isEqualTo(Stage.KILL);
    assertThat(report.isComplete()).isTrue();
    assertThat(report.terminated()).hasSize(200);
    assertThat(report.killed()).hasSize(200);
    assertThat(report.elapsed()).isLessThan(GRACE.plus(BOUND));
    assertThat(Files.exists(tree.cgroup().orElseThrow())).isFalse();
  }

  @Test
  void aFrozenForkStormOfFiveHundredIsEnded() throws Exception {
    Path storm = Fixtures.titled();
    ProcessTree tree =
        spawn(
            ProcessPlatform.get(),
            Adversaries.sh("exec " + storm + " storm 500"),
            CGROUP.withFreezeBeforeKill(true));
    awaitView(tree, "501 processes", v -> v.all().size() >= 501);

    TerminationReport report = tree.terminate(Duration.ZERO);

    System.out.println(report);
    assertThat(report.isComplete()).isTrue();
    assertThat(report.killed()).hasSizeGreaterThanOrEqualTo(501);
    assertThat(Files.exists(tree.cgroup().orElseThrow())).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("platforms")
  void aProgramThatCannotRunFailsTheSpawnWithItsErrnoAsWithoutACgroup(ProcessPlatform platform)
      throws IOException {
    Path missing = dir.resolve("no-such-program");
    assertThatThrownBy(() -> spawn(platform, new ProcessBuilder(missing.toString()), CGROUP))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("error=2");
    Path notExecutable = Files.writeString(dir.resolve("not-executable"), "#!/bin/sh\n");
    assertThatThrownBy(() -> spawn(platform, new ProcessBuilder(notExecutable.toString()), CGROUP))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("error=13");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("platforms")
  void theProgramGetsTheEnvironmentItWasGivenNotTheEnteringShells(ProcessPlatform platform)
      throws Exception {
    for (Optional<String> pwd : List.of(Optional.<String>empty(), Optional.of("/given/pwd"))) {
      ProcessBuilder builder = new ProcessBuilder("/usr/bin/env");
      builder.environment().clear();
      builder.environment().put("ONLY", "this");
      pwd.ifPresent(value -> builder.environment().put("PWD", value));
      ProcessTree tree = spawn(platform, builder, CGROUP);
      String out = new String(tree.leader().getInputStream().readAllBytes()).trim();
      assertThat(tree.leader().waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
      List<String> expected = new java.util.ArrayList<>(List.of("ONLY=this"));
      pwd.ifPresent(value -> expected.add("PWD=" + value));
      assertThat(
              Stream.of(out.split("\n"))
                  .filter(line -> !line.startsWith(SpawnOptions.COOKIE_VARIABLE + "="))
                  .sorted())
          .as("environment of a CGROUP-tier program, PWD %s", pwd)
          .containsExactlyElementsOf(expected.stream().sorted().toList());
      tree.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("platforms")
  void aLeaderThatExitsAtOnceIsNoEntryFailure(ProcessPlatform platform) throws Exception {
    // The platform moves the child again after the spawn returns; a leader that has already
    // exited by then (ESRCH) ran inside its cgroup, since the entering shell moved it first.
    for (int i = 0; i < 100; i++) {
      ProcessTree tree = spawn(platform, new ProcessBuilder("/bin/true"), CGROUP);
      assertThat(tree.leader().waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(tree.leader().exitValue()).as("spawn %d", i).isZero();
      tree.close();
    }
  }

  @Test
  void requiringTheCgroupTierFailsFastNamingTheReason() {
    Containment unusable =
        Containment.decide(
            Containment.Mode.REQUIRE_CGROUP, Optional.of("/no-such-" + System.nanoTime()));
    assertThat(unusable.isRequirementMet()).isFalse();
    assertThat(unusable.tier()).isEqualTo(ContainmentTier.SESSION);
    assertThat(unusable.reason()).contains("configured parent").contains("ENOENT");
    Containment session = Containment.decide(Containment.Mode.SESSION, Optional.empty());
    assertThat(session.tier()).isEqualTo(ContainmentTier.SESSION);
    assertThat(session.reason()).contains("configured");
  }

  @Test
  void capabilitiesNameTheTierAndItsReason() {
    Containment containment = ProcessPlatform.get().capabilities().containment();
    assertThat(containment.tier()).isEqualTo(ContainmentTier.CGROUP);
    assertThat(containment.reason()).contains("writable");
  }
}
