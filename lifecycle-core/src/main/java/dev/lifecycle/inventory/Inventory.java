package dev.lifecycle.inventory;

import dev.lifecycle.internal.DetachMarks;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.record.ReadResult;
import dev.lifecycle.record.RecordStore;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Every tree lifecycle made on this machine that still has a live member, and the exact sweep of
 * those whose owner is proven gone. Thread-safe: an inventory holds only its configuration.
 *
 * <pre>{@code
 * Inventory inventory = Inventory.of(ProcessPlatform.get());
 * // at start-up: end what a previous run of this host left behind
 * for (ReapReport r : inventory.reap(inventory.take(), Duration.ofSeconds(5), false)) {
 *   System.err.println(r.outcome());
 * }
 * }</pre>
 *
 * <p>What is found: CGROUP-tier trees by their cgroup's name ({@code lifecycle-<owner pid>-<owner
 * start>-...}, anywhere in the cgroup v2 hierarchy) and its {@code cgroup.procs}; SESSION-tier
 * trees by the cookie their processes carry ({@code LIFECYCLE_TREE_COOKIE}, which names the owner's
 * pid, start time and boot id); tether sidecars by their command line. Owners are judged on proof
 * only ({@link OwnerVerdict}). A process that carries no readable cookie and is in no owned cgroup
 * is invisible here, as it is to a SESSION-tier tree's own termination.
 *
 * <p>{@link #reap} ends, staged (TERM and CONT, grace, KILL, verify), exactly the trees whose owner
 * is proven gone, re-judged just before; it never signals a process that is not a member of such a
 * tree, never a tree that holds this process or one of its ancestors, never a tether sidecar, and a
 * detached tree only when asked. The members it is handed must still be proven the tree's (in its
 * cgroup, or carrying its cookie or descended from a process that does): a stale or hand-made list
 * is refused, and a fresh {@link #take()} lists the tree as it is now.
 *
 * <p>{@link #take()} and {@link #readStore} only read. {@link #reap} also removes the detach marks
 * of trees that have no live member left (a detached daemon that has since exited), in every mark
 * directory this user may write; a mark of a tree with a live member is never removed.
 */
public final class Inventory {
  /** The default window over which CPU shares are measured: two snapshots this far apart. */
  public static final Duration DEFAULT_WINDOW = Duration.ofMillis(200);

  private final ProcessPlatform platform;
  private final Owners owners;
  private final Duration window;

  private Inventory(ProcessPlatform platform, Duration window) {
    this.platform = platform;
    this.owners = new Owners(platform);
    this.window = window;
  }

  /**
   * An inventory read through {@code platform}, measuring CPU over {@link #DEFAULT_WINDOW}.
   *
   * @param platform reads and signals processes
   * @return the inventory
   */
  public static Inventory of(ProcessPlatform platform) {
    return new Inventory(Objects.requireNonNull(platform, "platform"), DEFAULT_WINDOW);
  }

  /**
   * A copy that measures CPU shares over {@code value} ({@link Duration#ZERO}: not measured, one
   * snapshot only, the fastest look).
   *
   * @param value the window, not negative
   * @return a new inventory
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public Inventory withWindow(Duration value) {
    if (value.isNegative()) {
      throw new IllegalArgumentException("window must not be negative: " + value);
    }
    return new Inventory(platform, value);
  }

  /**
   * Looks at the machine now: every tree of lifecycle's with a live member.
   *
   * @return the trees found, CGROUP first, then SESSION, then tethers, oldest first within each
   * @throws InterruptedException when interrupted during the CPU window
   */
  public List<FoundTree> take() throws InterruptedException {
    double uptime = Measure.uptimeSeconds();
    Set<String> marks = DetachMarks.all();
    FirstLook look = FirstLook.take(platform);
    // Every cookie first: a process in an owned cgroup that carries another tree's cookie (a
    // tree spawned by a lifecycle program that itself runs in the cgroup) is that tree's too.
    CgroupTrees cgroups = CgroupTrees.find(platform, look);
    CookieTrees sessions = CookieTrees.find(look, cgroups);
    List<Candidate> found = new ArrayList<>(cgroups.candidates(look.cookieOf, sessions.members));
    found.addAll(sessions.candidates);
    found.addAll(Tethers.find(platform, look));

    // The second look: CPU over the window.
    Map<Long, ProcessInfo> second = Map.of();
    long elapsedNanos = 0;
    if (!window.isZero()) {
      Thread.sleep(window.toMillis(), (int) (window.toNanosPart() % 1_000_000));
      ProcessTable later = platform.snapshot();
      elapsedNanos = later.takenAtNanos() - look.table.takenAtNanos();
      second = new HashMap<>();
      for (ProcessInfo row : later.all()) {
        second.put(row.pid(), row);
      }
    }

    String boot = look.table.bootId();
    Measure measure = new Measure(platform, boot, uptime, elapsedNanos);
    List<FoundTree> trees = new ArrayList<>();
    for (Candidate c : found) {
      List<ProcessInfo> sorted = new ArrayList<>(c.members());
      sorted.sort(Comparator.comparingLong(ProcessInfo::startTime));
      List<Member> members = new ArrayList<>();
      for (ProcessInfo row : sorted) {
        members.add(measure.member(row, second.get(row.pid())));
      }
      String cookie = c.cookie();
      Owner owner = owners.of(c.kind(), c.id(), sorted.get(0), boot);
      boolean detached = marks.contains(c.id()) || (!cookie.isEmpty() && marks.contains(cookie));
      trees.add(
          new FoundTree(
              c.kind(),
              c.id(),
              c.cgroup(),
              cookie,
              owner,
              measure.age(sorted.get(0).startTime()),
              members,
              detached));
    }
    return trees;
  }

  /**
   * Ends, staged, every tree of {@code trees} whose owner is proven gone; leaves every other one
   * alone and says why. The owner is judged again before each tree is ended.
   *
   * @param trees what {@link #take()} found
   * @param grace how long each tree may take to exit after SIGTERM before SIGKILL
   * @param includeDetached whether trees detached on purpose are ended too
   * @return one report per tree, in the order given
   */
  public List<ReapReport> reap(List<FoundTree> trees, Duration grace, boolean includeDetached) {
    Objects.requireNonNull(grace, "grace");
    return new Reaper(platform, owners).reap(trees, grace, includeDetached);
  }

  /**
   * The records of the store in {@code directory}, each judged without side effects: no lock file
   * created, nothing reclaimed, quarantined or swept; an absent directory is not created.
   *
   * @param directory a {@code RecordStore}'s directory
   * @return its records' status, or the problem that kept it from being read
   */
  public StoreStatus readStore(Path directory) {
    if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
      return new StoreStatus(directory, List.of(), Optional.of("no such directory"));
    }
    List<ReadResult> results = new ArrayList<>();
    try {
      RecordStore store = RecordStore.open(directory, platform);
      List<String> names = new ArrayList<>();
      try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*.record")) {
        for (Path file : files) {
          String name = file.getFileName().toString();
          if (!name.startsWith(".")) {
            names.add(name.substring(0, name.length() - ".record".length()));
          }
        }
      }
      names.sort(null);
      for (String name : names) {
        results.add(store.look(name));
      }
      return new StoreStatus(directory, results, Optional.empty());
    } catch (IOException | RuntimeException e) {
      return new StoreStatus(directory, results, Optional.of(String.valueOf(e.getMessage())));
    }
  }
}
