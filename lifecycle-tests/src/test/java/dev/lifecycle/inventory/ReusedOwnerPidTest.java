package dev.lifecycle.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.cgroup.Cgroups;
import dev.lifecycle.internal.DetachMarks;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Requirement;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.tether.Procs;
import java.io.BufferedReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A dead owner's pid really taken by a new process ({@code ns_last_pid}, as root): its orphans are
 * still judged owner-gone (the start time differs) and reaped, the tether sidecar it left (stopped,
 * so it cannot end the trees itself) is judged by its owner too and never reaped, and the process
 * that now has the pid is never signalled.
 */
@NoProcessLeaks
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReusedOwnerPidTest {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final Path LAST_PID = Path.of("/proc/sys/kernel/ns_last_pid");
  private static final int ATTEMPTS = 200;

  private final Procs procs = new Procs();
  private final ProcessPlatform platform = ProcessPlatform.get();
  private final List<Process> reusers = new ArrayList<>();

  @TempDir Path marks;

  @RegisterExtension final OwnTrees own = new OwnTrees(() -> marks, BOUND);
  private final Inventory inventory = own.inventory();
  private final List<String> ids = own.ids();

  @AfterEach
  void killTheOwnersAndReusers() {
    procs.close();
    for (Process p : reusers) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"session", "cgroup"})
  void orphansOfAnOwnerWhosePidWasReusedAreReapedAndTheNewProcessIsNot(String tier)
      throws Exception {
    Requirement.require(Files.isWritable(LAST_PID), "forcing a pid needs root: " + LAST_PID);
    if (tier.equals("cgroup")) {
      Cgroups.writableParentOrSkip();
    }
    Process doomed =
        procs.javaMain(
            LeftoverOwnerMain.class,
            Map.of("JAVA_TOOL_OPTIONS", "-D" + DetachMarks.DIR_PROPERTY + "=" + marks),
            tier,
            "-",
            "no",
            "yes",
            "-");
    List<String> trees = new ArrayList<>();
    long tetherPid = readTrees(Procs.stdout(doomed), trees);
    ids.addAll(trees);
    ProcessIdentity sidecar = procs.track(tetherPid);
    ProcessIdentity owner = ProcFs.identity(doomed.pid()).orElseThrow();

    List<FoundTree> before = own.awaitFound(trees, found -> membersOf(found, trees) >= 6);
    FoundTree tether = tetherOf(before, tetherPid).orElseThrow();
    assertThat(tether.owner().verdict()).isEqualTo(OwnerVerdict.ALIVE);
    assertThat(tether.owner().identity()).contains(owner);
    List<ProcessIdentity> orphans = new ArrayList<>();
    before.stream()
        .filter(t -> trees.contains(t.id()))
        .forEach(t -> t.members().forEach(m -> orphans.add(m.identity())));
    assertThat(orphans).hasSizeGreaterThanOrEqualTo(6);

    // The sidecar would end the trees when its owner dies; stopped, it leaves them behind.
    platform.signal(sidecar, Signal.STOP);
    platform.signal(owner, Signal.KILL);
    assertThat(doomed.waitFor(10, TimeUnit.SECONDS)).isTrue();
    ProcessIdentity reused = takePid(owner.pid());
    assertThat(reused.startTime()).isNotEqualTo(owner.startTime());

    List<FoundTree> after = inventory.take();
    for (FoundTree t : after) {
      if (trees.contains(t.id())) {
        assertThat(t.owner().verdict()).as(t.id()).isEqualTo(OwnerVerdict.GONE);
        assertThat(t.owner().identity()).contains(owner);
        assertThat(t.owner().reason()).contains("another process");
      }
    }
    assertThat(after.stream().map(FoundTree::id)).containsAll(trees);
    FoundTree stoppedTether = tetherOf(after, tetherPid).orElseThrow();
    assertThat(stoppedTether.owner().verdict()).isEqualTo(OwnerVerdict.GONE);
    assertThat(stoppedTether.owner().reason()).contains("started after the sidecar");
    assertThat(after)
        .filteredOn(t -> trees.contains(t.id()) || t == stoppedTether)
        .flatMap(FoundTree::members)
        .extracting(Member::pid)
        .doesNotContain(reused.pid());

    // Only this test's trees: other leftovers on the machine belong to other runs.
    List<ReapReport> reports =
        inventory.reap(
            after.stream().filter(t -> trees.contains(t.id()) || t == stoppedTether).toList(),
            Duration.ofMillis(500),
            true);
    assertThat(reports).hasSize(trees.size() + 1);
    for (ReapReport r : reports) {
      if (trees.contains(r.tree().id())) {
        assertThat(r.ended()).as(r.outcome()).isTrue();
        assertThat(r.termination().orElseThrow().killed()).doesNotContain(reused.pid());
      } else if (r.tree().id().equals(stoppedTether.id())) {
        assertThat(r.termination()).as(r.outcome()).isEmpty();
        assertThat(r.outcome()).contains("tether sidecar");
      }
    }
    Procs.awaitAllGone(BOUND, orphans);
    assertThat(platform.probe(reused)).isEqualTo(Liveness.ALIVE);
    assertThat(platform.probe(sidecar)).isEqualTo(Liveness.ALIVE);
  }

  /**
   * Starts a process at {@code pid}, which must be free: sets the namespace's last pid one below
   * and forks at once, retrying while other forks on the machine take it first.
   */
  private ProcessIdentity takePid(long pid) throws Exception {
    String holder = "none";
    for (int i = 0; i < ATTEMPTS; i++) {
      ProcessBuilder b =
          new ProcessBuilder(
                  "sh",
                  "-c",
                  "echo $1 > " + LAST_PID + "; sleep 300 & echo $!; wait",
                  "sh",
                  String.valueOf(pid - 1))
              .redirectError(Redirect.INHERIT);
      b.environment().remove(SpawnOptions.COOKIE_VARIABLE);
      Process p = b.start();
      reusers.add(p);
      long got = Long.parseLong(Procs.readLine(Procs.stdout(p), BOUND).trim());
      if (got == pid) {
        Optional<ProcessIdentity> id = ProcFs.identity(pid);
        if (id.isPresent()
            && ProcessHandle.of(pid).flatMap(h -> h.parent()).map(ProcessHandle::pid).orElse(-1L)
                == p.pid()) {
          return id.get();
        }
      }
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor();
      reusers.remove(p);
      // Another fork won the race; a long-lived one holds the pid for good.
      holder = ProcessHandle.of(pid).flatMap(h -> h.info().commandLine()).orElse(holder);
    }
    Requirement.unmet(
        "pid "
            + pid
            + " was taken by another fork "
            + ATTEMPTS
            + " times (last seen: "
            + holder
            + ")");
    throw new AssertionError("unreachable");
  }

  private static long membersOf(List<FoundTree> found, List<String> trees) {
    return found.stream()
        .filter(t -> trees.contains(t.id()))
        .mapToLong(t -> t.members().size())
        .sum();
  }

  private static Optional<FoundTree> tetherOf(List<FoundTree> trees, long pid) {
    return trees.stream()
        .filter(t -> t.kind() == FoundTree.Kind.TETHER && t.members().get(0).pid() == pid)
        .findFirst();
  }

  private static long readTrees(BufferedReader out, List<String> trees) throws Exception {
    long tether = -1;
    while (true) {
      String line = Procs.readLine(out, BOUND);
      if (line.equals("READY")) {
        return tether;
      } else if (line.startsWith("TREE ")) {
        trees.add(line.substring(5));
      } else if (line.startsWith("TETHER ")) {
        tether = Long.parseLong(line.substring(7));
      }
    }
  }
}
