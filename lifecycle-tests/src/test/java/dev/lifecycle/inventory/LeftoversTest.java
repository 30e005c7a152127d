package dev.lifecycle.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.AsNobody;
import dev.lifecycle.cgroup.Cgroups;
import dev.lifecycle.internal.DetachMarks;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Requirement;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.tether.Procs;
import java.io.BufferedReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep against real leftovers: owner JVMs SIGKILLed (no tether, or a tether killed first)
 * while their trees run TERM-ignoring children, a setsid double-fork daemon and a redis-server, in
 * the CGROUP and the SESSION tier. A live owner's trees, a detached tree and an unrelated process
 * with the same command line are never touched.
 */
@NoProcessLeaks
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeftoversTest {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final Duration GRACE = Duration.ofMillis(500);

  private final Procs procs = new Procs();
  private final ProcessPlatform platform = ProcessPlatform.get();
  @TempDir Path marks;
  @TempDir Path dirA;
  @TempDir Path dirB;

  // Whatever the test left of the owners' trees is reaped once procs has killed the owners.
  @RegisterExtension final OwnTrees own = new OwnTrees(() -> marks, BOUND);
  private final Inventory inventory = own.inventory();
  private final List<String> ids = own.ids();

  @AfterEach
  void killTheOwners() {
    procs.close();
  }

  @Test
  void sessionTierOrphansOfAKilledOwnerAreEndedExactly() throws Exception {
    sweep("session", false);
  }

  @Test
  void sessionTierOrphansAreEndedWhenTheTetherWasKilledFirst() throws Exception {
    sweep("session", true);
  }

  @Test
  void cgroupTierOrphansOfAKilledOwnerAreEndedExactly() throws Exception {
    Cgroups.writableParentOrSkip();
    sweep("cgroup", false);
  }

  @Test
  void sessionTierOrphansOfAnUnprivilegedOwnerAreEndedExactly(@TempDir Path shared)
      throws Exception {
    AsNobody nobody = AsNobody.in(shared);
    // As nobody, in this JVM's root-owned cgroup, the host decides: the SESSION tier.
    Process doomed =
        track(nobody.javaMain(LeftoverOwnerMain.class, "auto", "-", "no", "no", "-").start());
    Process survivor =
        track(nobody.javaMain(LeftoverOwnerMain.class, "auto", "-", "no", "no", "-").start());
    Owned a = read(Procs.stdout(doomed));
    Owned b = read(Procs.stdout(survivor));
    assertThat(a.tier).isEqualTo("SESSION");
    assertThat(b.tier).isEqualTo("SESSION");
    Process stranger =
        track(
            nobody
                .command(List.of("sh", "-c", LeftoverOwnerMain.STUBBORN))
                .redirectOutput(Redirect.DISCARD)
                .start());
    check(doomed, a, b, stranger);
  }

  private Process track(Process p) {
    procs.track(p.pid());
    return p;
  }

  private void sweep(String tier, boolean tethered) throws Exception {
    String redis = Requirement.program("redis-server").toString();
    Map<String, String> env =
        Map.of("JAVA_TOOL_OPTIONS", "-D" + DetachMarks.DIR_PROPERTY + "=" + marks);
    Process doomed =
        procs.javaMain(
            LeftoverOwnerMain.class,
            env,
            tier,
            redis,
            "yes",
            tethered ? "yes" : "no",
            dirA.toString());
    Process survivor =
        procs.javaMain(LeftoverOwnerMain.class, env, tier, "-", "no", "no", dirB.toString());
    Owned a = read(Procs.stdout(doomed));
    Owned b = read(Procs.stdout(survivor));
    Process stranger =
        new ProcessBuilder("sh", "-c", LeftoverOwnerMain.STUBBORN)
            .redirectOutput(Redirect.DISCARD)
            .start();
    procs.track(stranger.pid());
    check(doomed, a, b, stranger);
  }

  /**
   * Kills {@code doomed} (and its tether), then: its trees are found owner-gone and ended whole;
   * {@code b}'s trees, {@code a}'s detached tree and {@code stranger} (same command line) are not.
   */
  private void check(Process doomed, Owned a, Owned b, Process stranger) throws Exception {
    Procs.await(BOUND, "stranger's children", () -> stranger.descendants().count() == 2);
    stranger.descendants().forEach(h -> procs.track(h.pid()));

    List<FoundTree> before = awaitAll(a, b);
    List<ProcessIdentity> doomedMembers = members(before, a.trees);
    List<ProcessIdentity> kept = new ArrayList<>(members(before, b.trees));
    kept.addAll(members(before, List.of(a.detached)));
    assertThat(doomedMembers).hasSizeGreaterThanOrEqualTo(6);

    if (a.tether > 0) {
      platform.signal(ProcFs.identity(a.tether).orElseThrow(), Signal.KILL);
    }
    ProcessIdentity owner = ProcFs.identity(doomed.pid()).orElseThrow();
    platform.signal(owner, Signal.KILL);
    assertThat(doomed.waitFor(10, TimeUnit.SECONDS)).isTrue();

    List<FoundTree> after = inventory.take();
    for (FoundTree t : after) {
      if (a.trees.contains(t.id()) || t.id().equals(a.detached)) {
        assertThat(t.owner().verdict()).as(t.id()).isEqualTo(OwnerVerdict.GONE);
        assertThat(t.owner().identity()).contains(owner);
      }
      if (b.trees.contains(t.id())) {
        assertThat(t.owner().verdict()).as(t.id()).isEqualTo(OwnerVerdict.ALIVE);
      }
    }
    if (!a.detached.isEmpty()) {
      assertThat(after)
          .filteredOn(t -> t.id().equals(a.detached))
          .singleElement()
          .satisfies(t -> assertThat(t.detached()).isTrue());
    }
    // (This JVM may itself run in a cgroup of the test kit's, which then holds the stranger.)
    assertThat(members(after, a.trees))
        .extracting(ProcessIdentity::pid)
        .doesNotContain(stranger.pid());

    // Only this test's trees: other leftovers on the machine belong to other runs.
    List<ReapReport> reports =
        inventory.reap(after.stream().filter(t -> ids.contains(t.id())).toList(), GRACE, false);
    for (ReapReport r : reports) {
      if (a.trees.contains(r.tree().id())) {
        assertThat(r.ended()).as(r.outcome()).isTrue();
      } else {
        assertThat(r.termination()).as(r.tree().id() + ": " + r.outcome()).isEmpty();
      }
    }
    Procs.awaitAllGone(BOUND, doomedMembers);
    for (ProcessIdentity p : kept) {
      assertThat(platform.probe(p)).as("kept " + p).isEqualTo(Liveness.ALIVE);
    }
    assertThat(stranger.isAlive()).isTrue();
    assertThat(stranger.descendants().filter(ProcessHandle::isAlive).count()).isEqualTo(2);
  }

  private List<FoundTree> awaitAll(Owned a, Owned b) {
    List<String> wanted = new ArrayList<>(a.trees);
    wanted.addAll(b.trees);
    if (!a.detached.isEmpty()) {
      wanted.add(a.detached);
    }
    ids.addAll(wanted);
    return own.awaitFound(
        wanted,
        found -> members(found, a.trees).size() >= 6 && members(found, b.trees).size() >= 6);
  }

  private static List<ProcessIdentity> members(List<FoundTree> trees, List<String> ids) {
    List<ProcessIdentity> out = new ArrayList<>();
    for (FoundTree t : trees) {
      if (ids.contains(t.id())) {
        t.members().forEach(m -> out.add(m.identity()));
      }
    }
    return out;
  }

  private record Owned(List<String> trees, String detached, long tether, String tier) {}

  private static Owned read(BufferedReader out) throws Exception {
    List<String> trees = new ArrayList<>();
    String detached = "";
    long tether = -1;
    String tier = "";
    while (true) {
      String line = Procs.readLine(out, BOUND);
      if (line.equals("READY")) {
        return new Owned(trees, detached, tether, tier);
      } else if (line.startsWith("TIER ")) {
        tier = line.substring(5);
      } else if (line.startsWith("TREE ")) {
        trees.add(line.substring(5));
      } else if (line.startsWith("DETACHED ")) {
        detached = line.substring(9);
      } else if (line.startsWith("TETHER ")) {
        tether = Long.parseLong(line.substring(7));
      }
    }
  }

  static Optional<FoundTree> byId(List<FoundTree> trees, String id) {
    return trees.stream().filter(t -> t.id().equals(id)).findFirst();
  }
}
