package dev.lifecycle.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeOptions;
import java.io.BufferedReader;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The tether with real processes: a supervisor JVM killed by SIGKILL takes its trees along. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TetherTest {
  private static final Duration GRACE = Duration.ofMillis(1000);
  private static final Duration BOUND = GRACE.plusSeconds(8); // generous: a loaded 2-core CI box

  private final Procs procs = new Procs();

  @BeforeEach
  void linuxOnly() {
    assumeTrue(ProcFs.isAvailable(), "the tether's tested guarantees need /proc");
  }

  @AfterEach
  void killEverythingStarted() {
    procs.close();
  }

  @Test
  void aSupervisorKilledBySigkillTakesItsTreesWithIt() throws Exception {
    Process supervisor = procs.javaMain(TetheredSupervisorMain.class, Map.of(), ms(GRACE));
    ProcessIdentity supervisorId = ProcFs.identity(supervisor.pid()).orElseThrow();
    List<ProcessIdentity> everyone = readPids(Procs.stdout(supervisor));
    assertThat(everyone).hasSize(1 + 4 + 3); // sidecar, stubborn tree with escapee, plain tree

    long killed = System.nanoTime();
    ProcessPlatform.get().signal(supervisorId, Signal.KILL);

    Procs.awaitAllGone(BOUND, everyone);
    System.out.printf(
        "tether: supervisor SIGKILLed, %d processes gone in %d ms (grace %d ms)%n",
        everyone.size(), (System.nanoTime() - killed) / 1_000_000, GRACE.toMillis());
  }

  @Test
  void anOrderlyCloseLeavesTheTreesAlone() throws Exception {
    Process supervisor = procs.javaMain(TetheredSupervisorMain.class, Map.of(), ms(GRACE));
    BufferedReader out = Procs.stdout(supervisor);
    List<ProcessIdentity> everyone = readPids(out);
    ProcessIdentity sidecar = everyone.get(0);
    List<ProcessIdentity> trees = everyone.subList(1, everyone.size());

    OutputStream in = supervisor.getOutputStream();
    in.write("close\n".getBytes(StandardCharsets.UTF_8));
    in.flush();
    assertThat(Procs.readLine(out, Duration.ofSeconds(10))).isEqualTo("CLOSED");
    Procs.awaitAllGone(Duration.ofSeconds(5), List.of(sidecar));
    // Nothing else could end them now, even with the supervisor gone.
    ProcessPlatform.get().signal(ProcFs.identity(supervisor.pid()).orElseThrow(), Signal.KILL);
    assertThat(supervisor.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(trees).noneMatch(Procs::isGone);
  }

  /**
   * A bound tree whose group id now names a foreign process (the tree exited, the pgid was
   * recycled): the sidecar must refuse it, the foreign process has neither the recorded leader
   * start time nor the cookie. A real tree bound next to it is ended, so the teardown did run.
   */
  @Test
  void theSidecarNeverSignalsAGroupItCannotProveIsOurs() throws Exception {
    ProcessPlatform platform = ProcessPlatform.get();
    SupervisedProcess foreign =
        platform.spawn(
            new ProcessBuilder("sleep", "300").redirectOutput(Redirect.DISCARD),
            SpawnOptions.defaults().withNewSession(true));
    ProcessIdentity foreignId = procs.track(foreign.pid());
    assertThat(foreign.processGroupId()).isEqualTo(foreign.pid());
    ProcessTree ours =
        ProcessTree.spawn(
            platform,
            new ProcessBuilder("sh", "-c", "trap '' TERM; sleep 300 & wait")
                .redirectOutput(Redirect.DISCARD),
            TreeOptions.defaults());
    Procs.await(Duration.ofSeconds(10), "tree up", () -> ours.view().all().size() == 2);
    List<ProcessIdentity> oursIds = ours.view().all().stream().map(m -> m.identity()).toList();
    oursIds.forEach(id -> procs.track(id.pid()));

    try (Tether tether = Tether.builder().grace(GRACE).start()) {
      ProcessIdentity recycled =
          new ProcessIdentity(foreignId.pid(), foreignId.startTime() + 7, foreignId.bootId());
      tether.bind(foreign.pid(), recycled, SpawnOptions.newCookie());
      tether.bind(ours);
      ProcessIdentity sidecar = tether.sidecar();
      tether.closeAndKill();
      assertThat(Procs.isGone(sidecar)).isTrue();
    }

    Procs.awaitAllGone(Duration.ofSeconds(10), oursIds);
    assertThat(Procs.isGone(foreignId)).isFalse();
    ours.terminate(Duration.ZERO); // reaps the leader
  }

  @Test
  void closingABindingUnbindsTheTree() throws Exception {
    ProcessTree tree =
        ProcessTree.spawn(
            new ProcessBuilder("sleep", "300").redirectOutput(Redirect.DISCARD),
            TreeOptions.defaults());
    ProcessIdentity leader = procs.track(tree.leader().pid());
    try (Tether tether = Tether.builder().grace(Duration.ZERO).start()) {
      Tether.Binding binding = tether.bind(tree);
      assertThat(binding.isBound()).isTrue();
      binding.close();
      assertThat(binding.isBound()).isFalse();
      tether.closeAndKill();
    }
    assertThat(Procs.isGone(leader)).isFalse();
    tree.terminate(Duration.ZERO);
    assertThat(Procs.isGone(leader)).isTrue();
  }

  @Test
  void theSharedTetherIsOnePerJvmAndLeavesNothingOnDisk() throws Exception {
    Tether shared = Tether.shared();
    procs.track(shared.sidecar().pid());
    assertThat(Tether.shared()).isSameAs(shared);
    assertThat(shared.isActive()).isTrue();
    // The script removed itself and its private directory once running.
    List<String> command = ProcessPlatform.get().commandLine(shared.sidecar().pid()).orElseThrow();
    assertThat(java.nio.file.Path.of(command.get(1)).getParent()).doesNotExist();
    shared.close();
    Procs.awaitAllGone(Duration.ofSeconds(5), List.of(shared.sidecar()));
    assertThat(Tether.shared()).isNotSameAs(shared);
    procs.track(Tether.shared().sidecar().pid());
    Tether.shared().close();
  }

  private List<ProcessIdentity> readPids(BufferedReader out) throws Exception {
    String line = Procs.readLine(out, Duration.ofSeconds(30));
    assertThat(line).startsWith("PIDS ");
    return Arrays.stream(line.substring(5).split(" "))
        .map(pid -> procs.track(Long.parseLong(pid)))
        .toList();
  }

  private static String ms(Duration d) {
    return Long.toString(d.toMillis());
  }
}
