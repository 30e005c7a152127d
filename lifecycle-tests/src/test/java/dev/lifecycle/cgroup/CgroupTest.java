package dev.lifecycle.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.CgroupHierarchy;
import dev.lifecycle.process.cgroup.CgroupPlacement;
import dev.lifecycle.process.cgroup.OwnedCgroups;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The cgroup v2 primitives against the real hierarchy (needs a writable cgroup; see Cgroups). */
@NoProcessLeaks
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CgroupTest {
  private static final Duration BOUND = Duration.ofSeconds(10);
  private static final OwnedCgroups.OwnerCheck PROVEN_GONE =
      (ownerPid, ownerStart) ->
          Liveness.judge(ProcessPlatform.get(), new ProcessIdentity(ownerPid, ownerStart, ""))
              .isProvenGone();

  private final List<Cgroup> created = new ArrayList<>();
  private final List<Process> started = new ArrayList<>();
  private Cgroup parent;

  @BeforeEach
  void needsAWritableCgroup() {
    parent = Cgroups.writableParentOrSkip();
  }

  @AfterEach
  void cleanUp() throws Exception {
    for (Cgroup cgroup : created) {
      if (cgroup.exists() && cgroup.canKill()) {
        cgroup.kill();
        cgroup.awaitEmpty(BOUND);
      }
      cgroup.remove();
    }
    for (Process p : started) {
      p.destroyForcibly();
      p.waitFor();
    }
  }

  private Cgroup create() throws IOException {
    Cgroup cgroup =
        parent.createChild(
            OwnedCgroups.newName(
                ProcessHandle.current().pid(), ProcessPlatform.get().self().startTime()));
    created.add(cgroup);
    return cgroup;
  }

  /** Starts {@code script} gated: it runs only once {@link #go} is called (after it was moved). */
  private Process start(String script) throws IOException {
    Process p =
        new ProcessBuilder("sh", "-c", "read go; " + script)
            .redirectInput(Redirect.PIPE)
            .redirectOutput(Redirect.DISCARD)
            .redirectError(Redirect.DISCARD)
            .start();
    started.add(p);
    return p;
  }

  private static void go(Process p) throws IOException {
    p.getOutputStream().write('\n');
    p.getOutputStream().flush();
  }

  /** A cgroup of ours named for {@code owner}, its {@code seq}th. */
  private Cgroup ownedBy(ProcessIdentity owner, int seq) throws IOException {
    Cgroup cgroup =
        parent.createChild(
            OwnedCgroups.PREFIX + owner.pid() + "-" + owner.startTime() + "-" + seq + "-0000abcd");
    created.add(cgroup);
    return cgroup;
  }

  /** A {@code sleep 300} that runs inside {@code cgroup} from its start. */
  private Process sleeperIn(Cgroup cgroup) throws IOException {
    Process p = start("exec sleep 300");
    cgroup.enter(p.pid());
    go(p);
    return p;
  }

  /** An owner as a cgroup name records it, whose process has exited and whose pid is free. */
  private ProcessIdentity exitedOwner() throws Exception {
    Process owner = start("exit 0");
    ProcessIdentity identity = ProcFs.identity(owner.pid()).orElseThrow();
    go(owner);
    owner.waitFor();
    Await.until(BOUND, "pid free", () -> ProcFs.identity(owner.pid()), Optional::isEmpty);
    return identity;
  }

  @Test
  void theHierarchyIsTheCgroup2MountOfMountinfo() throws IOException {
    CgroupHierarchy hierarchy = CgroupHierarchy.locate().orElseThrow();
    String mount =
        Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
            .filter(l -> l.contains(" - cgroup2 "))
            .findFirst()
            .orElseThrow()
            .split(" ")[4];
    assertThat(hierarchy.mountPoint()).isEqualTo(Path.of(mount));
    assertThat(hierarchy.ofSelf()).isPresent();
    assertThat(Files.isDirectory(hierarchy.ofSelf().get().path())).isTrue();
  }

  @Test
  void membersAreExactAndRecursiveAndKillEmptiesByNotification() throws Exception {
    Cgroup cgroup = create();
    Cgroup nested = cgroup.createChild("nested");
    // A double-forked setsid daemon with a cleared environment: nothing but the cgroup names it.
    Process leader = start("env -i setsid -f sleep 300; sleep 300 & wait");
    cgroup.enter(leader.pid());
    Process other = start("exec sleep 300");
    nested.enter(other.pid());
    go(leader);
    go(other);
    // The leader entered after exec; wait until its forks are in (they are born inside).
    Await.until(BOUND, "4 members", () -> members(cgroup), m -> m.size() >= 4);
    assertThat(cgroup.members()).contains(leader.pid(), other.pid());
    assertThat(cgroup.processes()).doesNotContain(other.pid());
    assertThat(nested.processes()).containsExactly(other.pid());
    assertThat(cgroup.isPopulated()).isTrue();

    cgroup.freeze();
    Await.until(BOUND, "frozen", () -> frozen(cgroup), f -> f);
    CompletableFuture<Cgroup> empty = cgroup.onEmpty();
    assertThat(empty).isNotDone();
    cgroup.kill();
    assertThat(cgroup.awaitEmpty(BOUND)).isTrue();
    empty.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(cgroup.members()).isEmpty();
    assertThat(cgroup.remove()).isTrue();
    assertThat(cgroup.exists()).isFalse();
    assertThat(nested.exists()).isFalse();
  }

  private static java.util.Set<Long> members(Cgroup cgroup) {
    try {
      return cgroup.members();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static boolean frozen(Cgroup cgroup) {
    try {
      return cgroup.isFrozen();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aPopulatedCgroupIsNotRemovedAndAwaitHonoursItsDeadline() throws Exception {
    Cgroup cgroup = create();
    sleeperIn(cgroup);
    assertThat(cgroup.remove()).isFalse();
    long t0 = System.nanoTime();
    assertThat(cgroup.awaitEmpty(Duration.ofMillis(200))).isFalse();
    assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(190));
    assertThat(cgroup.exists()).isTrue();
  }

  /**
   * A cgroup removed while one of its files is being read reads as removed, never as an error: a
   * tree's own removal races every look at its cgroup, and an error there would read as "something
   * may be left". Two windows: a file opened before the rmdir and read after (ENODEV), and a file
   * opened after the kernel deactivated the cgroup's files but before it unlinked the directory.
   */
  @Test
  void aCgroupRemovedDuringAReadReadsAsEmptyNotAsAnError() throws Exception {
    List<String> errors = new CopyOnWriteArrayList<>();
    // Races removals against reads for a fixed 2 s: a measured window, not a wait.
    long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    int rounds = 0;
    while (System.nanoTime() < deadline && errors.isEmpty()) {
      Cgroup cgroup = create();
      var stop = new AtomicBoolean();
      var reads = new AtomicLong();
      Thread reader =
          new Thread(
              () -> {
                while (!stop.get()) {
                  try {
                    assertThat(cgroup.isPopulated()).isFalse();
                    assertThat(cgroup.members()).isEmpty();
                    reads.incrementAndGet();
                  } catch (IOException | RuntimeException | AssertionError e) {
                    errors.add(e.toString());
                    return;
                  }
                }
              });
      reader.start();
      try {
        awaitReads(reads, 1, errors); // the reader is in its loop: the removal races a read
        assertThat(cgroup.remove()).isTrue();
        awaitReads(reads, reads.get() + 2, errors); // reads that began after the removal
      } finally {
        stop.set(true);
        reader.join(BOUND.toMillis());
      }
      rounds++;
    }
    assertThat(errors).as("errors in %d rounds", rounds).isEmpty();
  }

  /** Waits until the reader has completed {@code atLeast} reads or reported an error. */
  private static void awaitReads(AtomicLong reads, long atLeast, List<String> errors) {
    Await.until(BOUND, "reader progress", () -> reads.get() >= atLeast || !errors.isEmpty());
  }

  @Test
  void failuresNameThePathAndErrno() throws IOException {
    Cgroup cgroup = create();
    assertThatThrownBy(() -> cgroup.enter(Integer.MAX_VALUE - 7))
        .hasMessageContaining(cgroup.path().resolve("cgroup.procs").toString())
        .hasMessageContaining("ESRCH");
    assertThatThrownBy(() -> parent.createChild(cgroup.name())).hasMessageContaining("EEXIST");
  }

  @Test
  void staleCleanupRemovesOnlyEmptyCgroupsOfDeadOwners() throws Exception {
    ProcessIdentity gone = exitedOwner();
    Cgroup dead = ownedBy(gone, 1);
    Cgroup live = create(); // owned by this JVM
    Cgroup foreign = parent.createChild("not-ours-" + ProcessHandle.current().pid());
    created.add(foreign);
    Cgroup deadButPopulated = ownedBy(gone, 2);
    sleeperIn(deadButPopulated);

    int removed = OwnedCgroups.removeStale(parent, PROVEN_GONE);

    assertThat(dead.exists()).isFalse();
    assertThat(removed).isGreaterThanOrEqualTo(1);
    assertThat(live.exists()).isTrue();
    assertThat(foreign.exists()).isTrue();
    assertThat(deadButPopulated.exists()).isTrue();
  }

  /**
   * The last process of a cgroup of ours whose creator is gone moves itself to the parent and
   * removes it (a broker a CLI started, at its end); while anything else is inside, or the creator
   * lives, nothing moves.
   */
  @Test
  void theLastProcessOfAnOrphanedCgroupLeavesAndRemovesIt() throws Exception {
    ProcessIdentity creator = exitedOwner();
    OwnedCgroups.OwnerCheck gone = PROVEN_GONE;
    Cgroup orphan = ownedBy(creator, 3);
    Process last = sleeperIn(orphan);

    Process other = sleeperIn(orphan);
    assertThat(OwnedCgroups.leaveIfOrphaned(orphan, last.pid(), Set.of(), gone)).isFalse();
    Cgroup sub = orphan.createChild("sub"); // a tree it started, still running
    sub.enter(other.pid());
    assertThat(OwnedCgroups.leaveIfOrphaned(orphan, last.pid(), Set.of(), gone)).isFalse();
    parent.enter(other.pid()); // that tree is gone: its empty cgroup goes with the orphan
    Process companion = sleeperIn(orphan); // a sidecar that ends with it: moves with it
    Cgroup owned = create(); // its creator, this JVM, lives
    Process inOwned = sleeperIn(owned);
    assertThat(OwnedCgroups.leaveIfOrphaned(owned, inOwned.pid(), Set.of(), gone)).isFalse();
    assertThat(owned.processes()).containsExactly(inOwned.pid());
    assertThat(orphan.processes()).containsExactlyInAnyOrder(last.pid(), companion.pid());
    assertThat(OwnedCgroups.leaveIfOrphaned(orphan, last.pid(), Set.of(), gone)).isFalse();

    assertThat(OwnedCgroups.leaveIfOrphaned(orphan, last.pid(), Set.of(companion.pid()), gone))
        .isTrue();
    assertThat(parent.processes()).contains(companion.pid());
    assertThat(sub.exists()).isFalse();
    assertThat(orphan.exists()).isFalse();
    assertThat(parent.processes()).contains(last.pid());
    assertThat(last.isAlive()).isTrue();
  }

  @Test
  void placementNamesWhyACandidateIsRefused() {
    CgroupHierarchy hierarchy = CgroupHierarchy.locate().orElseThrow();
    CgroupPlacement missing =
        CgroupPlacement.choose(hierarchy, Optional.of("/no-such-cgroup-" + System.nanoTime()));
    assertThat(missing.parent()).isEmpty();
    assertThat(missing.reason()).contains("configured parent").contains("ENOENT");
    CgroupPlacement chosen = CgroupPlacement.choose(hierarchy, Optional.empty());
    assertThat(chosen.parent()).isPresent();
    assertThat(chosen.reason()).contains("writable");
  }
}
