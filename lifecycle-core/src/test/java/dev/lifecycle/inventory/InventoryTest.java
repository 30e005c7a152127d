package dev.lifecycle.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.internal.DetachMarks;
import dev.lifecycle.process.Containment;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.Requirement;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeOptions;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The inventory and its sweep on real processes, through the pure-JDK platform. */
class InventoryTest {
  private static final Duration BOUND = Duration.ofSeconds(20);
  private static final String STUBBORN = "trap '' TERM; sleep 300 & sleep 300 & wait";

  private final ProcessPlatform platform = ProcessPlatform.jdk();
  private final Inventory inventory = Inventory.of(platform).withWindow(Duration.ZERO);
  private final List<Process> started = new ArrayList<>();
  private final List<ProcessTree> trees = new ArrayList<>();

  @TempDir Path marks;

  @BeforeEach
  void isolateMarks() {
    Requirement.require(Files.isDirectory(Path.of("/proc/self")), "needs /proc");
    System.setProperty(DetachMarks.DIR_PROPERTY, marks.toString());
  }

  @AfterEach
  void endEverythingStarted() {
    System.clearProperty(DetachMarks.DIR_PROPERTY);
    for (ProcessTree tree : trees) {
      tree.terminate(Duration.ZERO);
    }
    for (Process p : started) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  @Test
  void aCookieNamesItsOwnerExactlyAndOldCookiesNameNone() {
    ProcessIdentity self = platform.self();
    String cookie = SpawnOptions.newCookie(self);
    assertThat(cookie.length()).isBetween(8, 64);
    new SpawnOptions(true, false, cookie); // a valid cookie
    assertThat(SpawnOptions.cookieOwner(cookie)).contains(self);
    assertThat(SpawnOptions.newCookie(self)).isNotEqualTo(cookie);
    assertThat(SpawnOptions.cookieOwner(SpawnOptions.newCookie())).isEmpty();
    assertThat(SpawnOptions.cookieOwner("lc1.12.34.short.abcdefghij")).isEmpty();
    assertThat(SpawnOptions.cookieOwner(cookie.substring(0, cookie.lastIndexOf('.') + 1)))
        .isEmpty();
    // No boot id, no owner: a plain random cookie.
    assertThat(SpawnOptions.cookieOwner(SpawnOptions.newCookie(new ProcessIdentity(5, 7, ""))))
        .isEmpty();
  }

  @Test
  void aLiveOwnersTreeIsShownAliveAndNeverReaped() throws Exception {
    ProcessTree tree = tree("sleep 300 & sleep 300 & wait");
    FoundTree found =
        awaitFound(
            tree.tier() == dev.lifecycle.process.ContainmentTier.CGROUP
                ? tree.cgroup().orElseThrow().getFileName().toString()
                : tree.cookie(),
            3);
    assertThat(found.owner().verdict()).isEqualTo(OwnerVerdict.ALIVE);
    assertThat(found.owner().identity()).contains(platform.self());
    assertThat(found.detached()).isFalse();

    List<ReapReport> reports = inventory.reap(List.of(found), Duration.ZERO, true);
    assertThat(reports.get(0).termination()).isEmpty();
    assertThat(reports.get(0).outcome()).contains("owner alive");
    for (Member m : found.members()) {
      assertThat(platform.probe(m.identity())).isEqualTo(Liveness.ALIVE);
    }
  }

  @Test
  void orphansOfAGoneOwnerAreEndedAndNothingElseIs() throws Exception {
    ProcessIdentity dead = deadProcess();
    // pid reuse: the owner's pid now names another process (this JVM), started at another time
    ProcessIdentity self = platform.self();
    ProcessIdentity reused = new ProcessIdentity(self.pid(), self.startTime() + 1, self.bootId());
    String orphanCookie = SpawnOptions.newCookie(dead);
    String reusedCookie = SpawnOptions.newCookie(reused);
    String liveCookie = SpawnOptions.newCookie(self);
    Process orphan = start(STUBBORN, orphanCookie);
    Process reusedOrphan = start(STUBBORN, reusedCookie);
    Process owned = start(STUBBORN, liveCookie);
    Process stranger = start(STUBBORN, null); // same command line, no cookie
    Process legacy = start(STUBBORN, SpawnOptions.newCookie()); // a cookie naming no owner

    FoundTree o = awaitFound(orphanCookie, 3);
    FoundTree r = awaitFound(reusedCookie, 3);
    FoundTree l = awaitFound(liveCookie, 3);
    FoundTree n = awaitFound(legacyCookie(legacy), 3);
    assertThat(o.owner().verdict()).isEqualTo(OwnerVerdict.GONE);
    assertThat(o.owner().identity()).contains(dead);
    assertThat(r.owner().verdict()).isEqualTo(OwnerVerdict.GONE);
    assertThat(r.owner().reason()).contains("another process");
    assertThat(l.owner().verdict()).isEqualTo(OwnerVerdict.ALIVE);
    assertThat(n.owner().verdict()).isEqualTo(OwnerVerdict.NOT_PROVABLE);
    assertThat(n.owner().identity()).isEmpty();
    List<Long> strangers = pidsOf(stranger);
    assertThat(inventory.take())
        .flatMap(FoundTree::members)
        .extracting(Member::pid)
        .doesNotContainAnyElementsOf(strangers);

    List<ReapReport> reports = inventory.reap(List.of(o, r, l, n), Duration.ofMillis(200), false);
    assertThat(reports.get(0).ended()).as(reports.get(0).outcome()).isTrue();
    assertThat(reports.get(0).termination().orElseThrow().endedBy())
        .isEqualTo(TerminationReport.Stage.KILL);
    assertThat(reports.get(1).ended()).as(reports.get(1).outcome()).isTrue();
    assertThat(reports.get(2).termination()).isEmpty();
    assertThat(reports.get(3).termination()).isEmpty();
    for (Member m : o.members()) {
      assertThat(platform.probe(m.identity())).isEqualTo(Liveness.GONE);
    }
    for (Member m : r.members()) {
      assertThat(platform.probe(m.identity())).isEqualTo(Liveness.GONE);
    }
    // the members are gone (zombies count as gone); the JDK's reaper records the exit after
    assertThat(orphan.onExit()).succeedsWithin(Duration.ofSeconds(10));
    assertThat(reusedOrphan.onExit()).succeedsWithin(Duration.ofSeconds(10));
    for (Process p : List.of(owned, stranger, legacy)) {
      assertThat(p.isAlive()).isTrue();
      assertThat(p.descendants().filter(ProcessHandle::isAlive).count()).isEqualTo(2);
    }
  }

  @Test
  void aDetachedOrphanIsShownAndEndedOnlyWhenAsked() throws Exception {
    String cookie = SpawnOptions.newCookie(deadProcess());
    start(STUBBORN, cookie);
    DetachMarks.mark(cookie, "detached by a test");
    FoundTree found = awaitFound(cookie, 3);
    assertThat(found.detached()).isTrue();
    assertThat(found.whyKept(false))
        .hasValueSatisfying(why -> assertThat(why).contains("detached"));

    ReapReport kept = inventory.reap(List.of(found), Duration.ZERO, false).get(0);
    assertThat(kept.termination()).isEmpty();
    assertThat(found.members()).allMatch(m -> platform.probe(m.identity()) == Liveness.ALIVE);

    ReapReport ended = inventory.reap(List.of(found), Duration.ZERO, true).get(0);
    assertThat(ended.ended()).as(ended.outcome()).isTrue();
    assertThat(found.members()).allMatch(m -> platform.probe(m.identity()) == Liveness.GONE);
  }

  @Test
  void aTreeThatHoldsALiveOwnersTreeIsLeftAlone() throws Exception {
    // A lifecycle program inside an orphan (a broker its dead creator left) runs a tree of its
    // own: ending the orphan would end that live owner's tree.
    String orphanCookie = SpawnOptions.newCookie(deadProcess());
    ProcessBuilder b =
        new ProcessBuilder(
                "sh",
                "-c",
                "read c; " + SpawnOptions.COOKIE_VARIABLE + "=$c sh -c \"" + STUBBORN + "\" & wait")
            .redirectOutput(Redirect.DISCARD);
    b.environment().put(SpawnOptions.COOKIE_VARIABLE, orphanCookie);
    Process host = b.start();
    started.add(host);
    ProcessIdentity hostId = platform.identify(host.pid()).orElseThrow();
    String nestedCookie = SpawnOptions.newCookie(hostId);
    host.getOutputStream().write((nestedCookie + "\n").getBytes(StandardCharsets.UTF_8));
    host.getOutputStream().flush();

    FoundTree orphan = awaitFound(orphanCookie, 1);
    FoundTree nested = awaitFound(nestedCookie, 3);
    assertThat(orphan.owner().verdict()).isEqualTo(OwnerVerdict.GONE);
    assertThat(nested.owner().verdict()).isEqualTo(OwnerVerdict.ALIVE);
    assertThat(nested.owner().identity()).contains(hostId);

    List<ReapReport> reports =
        inventory.reap(List.of(orphan, nested), Duration.ofMillis(200), false);
    assertThat(reports.get(0).termination()).as(reports.get(0).outcome()).isEmpty();
    assertThat(reports.get(0).outcome())
        .contains("holds SESSION tree " + nestedCookie + " of an owner not proven gone");
    assertThat(reports.get(1).termination()).isEmpty();
    assertThat(host.isAlive()).isTrue();
    for (Member m : nested.members()) {
      assertThat(platform.probe(m.identity())).isEqualTo(Liveness.ALIVE);
    }
  }

  @Test
  void membersNotProvenTheTreesAreNeverSignalled() throws Exception {
    Process stranger = start(STUBBORN, null); // older than the orphan, same command line
    String cookie = SpawnOptions.newCookie(deadProcess());
    start(STUBBORN, cookie);
    FoundTree found = awaitFound(cookie, 3);
    ProcessIdentity strangerId = platform.identify(stranger.pid()).orElseThrow();
    Member impostor = new Member(strangerId, 1, found.members().get(0).state(), "sh", -1, -1);
    List<Member> forged = new ArrayList<>(List.of(impostor));
    forged.addAll(found.members());
    FoundTree handMade =
        new FoundTree(
            found.kind(),
            found.id(),
            found.cgroup(),
            found.cookie(),
            found.owner(),
            found.age(),
            forged,
            false);

    ReapReport refused = inventory.reap(List.of(handMade), Duration.ZERO, false).get(0);
    assertThat(refused.termination()).as(refused.outcome()).isEmpty();
    assertThat(refused.outcome()).contains("pid " + stranger.pid() + " is not proven a member");
    assertThat(stranger.isAlive()).isTrue();
    assertThat(found.members()).allMatch(m -> platform.probe(m.identity()) == Liveness.ALIVE);

    ReapReport ended = inventory.reap(List.of(found), Duration.ZERO, false).get(0);
    assertThat(ended.ended()).as(ended.outcome()).isTrue();
    assertThat(stranger.isAlive()).isTrue();
    assertThat(stranger.descendants().filter(ProcessHandle::isAlive).count()).isEqualTo(2);
  }

  @Test
  void theMarkOfADetachedTreeWithNoLiveMemberGoesWithTheNextReapNotWithALook() throws Exception {
    String gone = SpawnOptions.newCookie(deadProcess());
    Process daemon = start(STUBBORN, gone);
    DetachMarks.mark(gone, "detached by a test");
    String kept = SpawnOptions.newCookie(deadProcess());
    start(STUBBORN, kept);
    DetachMarks.mark(kept, "detached by a test");
    FoundTree keptTree = awaitFound(kept, 3);
    awaitFound(gone, 3);
    daemon.descendants().forEach(ProcessHandle::destroyForcibly);
    daemon.destroyForcibly().waitFor();
    Await.until(
        BOUND,
        "the daemon's tree gone from the inventory",
        () -> {
          try {
            return inventory.take().stream().noneMatch(t -> t.id().equals(gone));
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
    assertThat(marks.resolve(gone)).as("a look removes nothing").exists();

    inventory.reap(List.of(), Duration.ZERO, false);
    assertThat(marks.resolve(gone)).doesNotExist();
    assertThat(marks.resolve(kept)).exists();
    assertThat(keptTree.members()).allMatch(m -> platform.probe(m.identity()) == Liveness.ALIVE);
    assertThat(awaitFound(kept, 3).detached()).isTrue();
  }

  @Test
  void detachMarksTheTreeAndCloseLeavesItRunning() throws Exception {
    ProcessTree tree = tree("sleep 300 & wait");
    tree.detach();
    assertThat(tree.isDetached()).isTrue();
    String key = tree.cgroup().map(p -> p.getFileName().toString()).orElse(tree.cookie());
    assertThat(marks.resolve(key)).exists();
    FoundTree found = awaitFound(key, 2);
    assertThat(found.detached()).isTrue();
    tree.close();
    assertThat(found.members()).allMatch(m -> platform.probe(m.identity()) == Liveness.ALIVE);
    assertThat(tree.terminate(Duration.ZERO).noSurvivorSeen()).isTrue();
  }

  @Test
  void storesAreReadWithoutCreatingAnything(@TempDir Path dir) throws Exception {
    Path absent = dir.resolve("absent");
    StoreStatus missing = inventory.readStore(absent);
    assertThat(missing.problem()).contains("no such directory");
    assertThat(absent).doesNotExist();

    Path store = Files.createDirectory(dir.resolve("store"));
    Files.setPosixFilePermissions(
        store, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    Files.writeString(store.resolve("broken.record"), "not a record");
    StoreStatus status = inventory.readStore(store);
    assertThat(status.problem()).isEmpty();
    assertThat(status.records()).hasSize(1);
    assertThat(status.records().get(0).status())
        .isEqualTo(dev.lifecycle.record.ReadResult.Status.CORRUPT);
    try (var files = Files.list(store)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("broken.record");
    }
  }

  private String legacyCookie(Process p) throws Exception {
    return Await.until(
            BOUND,
            "cookie of " + p.pid(),
            () -> platform.environmentValue(p.pid(), SpawnOptions.COOKIE_VARIABLE),
            Optional::isPresent)
        .orElseThrow();
  }

  private ProcessTree tree(String script) throws Exception {
    ProcessTree tree =
        ProcessTree.spawn(
            platform,
            new ProcessBuilder("sh", "-c", script).redirectOutput(Redirect.DISCARD),
            TreeOptions.defaults().withContainment(Containment.Mode.SESSION));
    trees.add(tree);
    return tree;
  }

  private Process start(String script, String cookie) throws Exception {
    ProcessBuilder b = new ProcessBuilder("sh", "-c", script).redirectOutput(Redirect.DISCARD);
    b.environment().remove(SpawnOptions.COOKIE_VARIABLE);
    if (cookie != null) {
      b.environment().put(SpawnOptions.COOKIE_VARIABLE, cookie);
    }
    Process p = b.start();
    started.add(p);
    Await.until(BOUND, "children of " + p.pid(), () -> p.descendants().count(), n -> n == 2);
    return p;
  }

  private static List<Long> pidsOf(Process p) {
    List<Long> out = new ArrayList<>();
    out.add(p.pid());
    p.descendants().forEach(h -> out.add(h.pid()));
    return out;
  }

  /** The identity of a process that ran and is gone. */
  private ProcessIdentity deadProcess() throws Exception {
    Process p = new ProcessBuilder("sleep", "30").start();
    ProcessIdentity id = platform.identify(p.pid()).orElseThrow();
    p.destroyForcibly().waitFor();
    assertThat(platform.probe(id)).isEqualTo(Liveness.GONE);
    return id;
  }

  private FoundTree awaitFound(String id, int members) {
    return Await.until(
            BOUND,
            "tree " + id + " with " + members + " members",
            () -> {
              try {
                return inventory.take().stream().filter(t -> t.id().equals(id)).findFirst();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            },
            t -> t.isPresent() && t.get().members().size() == members)
        .orElseThrow();
  }
}
