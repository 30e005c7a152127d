package dev.lifecycle.inventory;

import dev.lifecycle.internal.DetachMarks;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.CgroupHierarchy;
import dev.lifecycle.process.cgroup.OwnedCgroups;
import dev.lifecycle.record.ReadResult;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.tree.Orphans;
import dev.lifecycle.tree.TerminationReport;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
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
 * detached tree only when asked.
 */
public final class Inventory {
  /** The default window over which CPU shares are measured: two snapshots this far apart. */
  public static final Duration DEFAULT_WINDOW = Duration.ofMillis(200);

  private static final String COOKIE = SpawnOptions.COOKIE_VARIABLE;
  private static final long KTHREADD = 2;
  private static final int MAX_CGROUP_DEPTH = 32;
  private static final String TETHER_NAME = "lifecycle-tether";

  private final ProcessPlatform platform;
  private final Duration window;

  private Inventory(ProcessPlatform platform, Duration window) {
    this.platform = platform;
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
    ProcessTable first = platform.snapshot();
    String boot = first.bootId();
    long self = platform.self().pid();
    Set<String> marks = DetachMarks.all();
    double uptime = uptimeSeconds();

    Map<Long, ProcessInfo> rows = new HashMap<>();
    for (ProcessInfo row : first.all()) {
      if (!row.hasExited()) {
        rows.put(row.pid(), row);
      }
    }
    // Every cookie first: a process in an owned cgroup that carries another tree's cookie (a
    // tree spawned by a lifecycle program that itself runs in the cgroup) is that tree's too.
    Map<Long, String> cookieOf = new HashMap<>();
    List<ProcessInfo> shells = new ArrayList<>();
    for (ProcessInfo row : first.all()) {
      long pid = row.pid();
      if (row.hasExited() || pid <= KTHREADD || row.ppid() == KTHREADD || pid == self) {
        continue;
      }
      Optional<String> cookie = platform.environmentValue(pid, COOKIE);
      if (cookie.isPresent() && !cookie.get().isEmpty()) {
        cookieOf.put(pid, cookie.get());
      }
      if (isShell(row.command())) {
        shells.add(row);
      }
    }
    List<Candidate> found = new ArrayList<>();
    Set<Long> inCgroups = new HashSet<>();
    Set<Long> claimed = new HashSet<>(); // carriers of the cookie of the cgroup tree they are in
    List<Path> cgroupDirs = new ArrayList<>();
    List<List<ProcessInfo>> cgroupMembers = new ArrayList<>();
    List<String> cgroupCookies = new ArrayList<>();
    Optional<CgroupHierarchy> hierarchy = CgroupHierarchy.locate();
    if (hierarchy.isPresent()) {
      List<Path> owned = new ArrayList<>();
      ownedCgroups(hierarchy.get().root().path(), 0, owned);
      for (Path dir : owned) {
        List<ProcessInfo> members = new ArrayList<>();
        for (long pid : directMembers(dir)) {
          ProcessInfo row = rows.get(pid);
          if (row == null) {
            row = platform.info(pid).filter(r -> !r.hasExited()).orElse(null);
          }
          if (row != null) {
            members.add(row);
          }
        }
        if (members.isEmpty()) {
          continue;
        }
        members.sort(Comparator.comparingLong(ProcessInfo::startTime));
        String own = ownCookie(dir.getFileName().toString(), members, cookieOf);
        for (ProcessInfo row : members) {
          String cookie = cookieOf.get(row.pid());
          if (cookie != null && cookie.equals(own)) {
            claimed.add(row.pid());
          }
          // A tree's own cgroup holds what it spawned; a cgroup made for something else (a test
          // kit's, a host's) only holds processes that may belong to trees within it.
          if (!own.isEmpty()) {
            inCgroups.add(row.pid());
          }
        }
        cgroupMembers.add(members);
        cgroupDirs.add(dir);
        cgroupCookies.add(own);
      }
    }
    // SESSION trees: the carriers of a cookie no cgroup was made for, and their descendants that
    // carry none (env -i, a rewritten environment).
    Map<String, List<ProcessInfo>> byCookie = new LinkedHashMap<>();
    for (ProcessInfo row : first.all()) {
      String cookie = cookieOf.get(row.pid());
      if (cookie != null && !claimed.contains(row.pid())) {
        byCookie.computeIfAbsent(cookie, k -> new ArrayList<>()).add(row);
      }
    }
    Set<Long> inSessionTrees = new HashSet<>();
    List<Candidate> sessions = new ArrayList<>();
    for (Map.Entry<String, List<ProcessInfo>> e : byCookie.entrySet()) {
      List<ProcessInfo> members = withDescendants(first, e.getValue(), cookieOf, inCgroups, self);
      for (ProcessInfo row : members) {
        inSessionTrees.add(row.pid());
      }
      sessions.add(
          new Candidate(FoundTree.Kind.SESSION, e.getKey(), Optional.empty(), e.getKey(), members));
    }
    for (int i = 0; i < cgroupDirs.size(); i++) {
      List<ProcessInfo> mine = new ArrayList<>();
      for (ProcessInfo row : cgroupMembers.get(i)) {
        if (claimed.contains(row.pid())
            || (!cookieOf.containsKey(row.pid()) && !inSessionTrees.contains(row.pid()))) {
          mine.add(row);
        }
      }
      if (!mine.isEmpty()) { // else only other trees' processes are in it, listed as those
        Path dir = cgroupDirs.get(i);
        found.add(
            new Candidate(
                FoundTree.Kind.CGROUP,
                dir.getFileName().toString(),
                Optional.of(dir),
                cgroupCookies.get(i),
                mine));
      }
    }
    found.addAll(sessions);
    for (ProcessInfo shell : shells) {
      Optional<List<String>> argv = platform.commandLine(shell.pid());
      if (argv.isPresent() && isTether(argv.get())) {
        found.add(
            new Candidate(
                FoundTree.Kind.TETHER,
                "tether-" + shell.pid(),
                Optional.empty(),
                cookieOf.getOrDefault(shell.pid(), ""),
                List.of(shell)));
      }
    }

    // The second look: CPU over the window.
    Map<Long, ProcessInfo> second = Map.of();
    long elapsedNanos = 0;
    if (!window.isZero()) {
      Thread.sleep(window.toMillis(), (int) (window.toNanosPart() % 1_000_000));
      ProcessTable later = platform.snapshot();
      elapsedNanos = later.takenAtNanos() - first.takenAtNanos();
      second = new HashMap<>();
      for (ProcessInfo row : later.all()) {
        second.put(row.pid(), row);
      }
    }

    List<FoundTree> trees = new ArrayList<>();
    for (Candidate c : found) {
      List<ProcessInfo> sorted = new ArrayList<>(c.members);
      sorted.sort(Comparator.comparingLong(ProcessInfo::startTime));
      List<Member> members = new ArrayList<>();
      for (ProcessInfo row : sorted) {
        members.add(member(row, boot, second.get(row.pid()), elapsedNanos));
      }
      String cookie = c.cookie;
      Owner owner =
          switch (c.kind) {
            case CGROUP -> cgroupOwner(c.id, boot);
            case SESSION -> cookieOwner(c.id, boot);
            case TETHER -> tetherOwner(sorted.get(0), boot);
          };
      Duration age =
          uptime < 0
              ? Duration.ZERO
              : Duration.ofMillis(
                  Math.max(0, (long) (uptime * 1000) - sorted.get(0).startTime() * 10));
      boolean detached = marks.contains(c.id) || (!cookie.isEmpty() && marks.contains(cookie));
      trees.add(new FoundTree(c.kind, c.id, c.cgroup, cookie, owner, age, members, detached));
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
    Set<Long> protectedPids = selfAndAncestors();
    List<ReapReport> reports = new ArrayList<>();
    for (FoundTree tree : trees) {
      Optional<String> kept = tree.whyKept(includeDetached);
      if (kept.isEmpty()) {
        kept = stillOrphaned(tree, protectedPids);
      }
      if (kept.isEmpty()) {
        kept = holdsAnotherOwnersTree(tree, trees);
      }
      if (kept.isPresent()) {
        reports.add(new ReapReport(tree, Optional.empty(), "left alone: " + kept.get()));
        continue;
      }
      ProcessIdentity oldest = tree.members().get(0).identity();
      String label = tree.kind() + " tree " + tree.id();
      TerminationReport report =
          tree.kind() == FoundTree.Kind.CGROUP
              ? Orphans.endCgroup(platform, tree.cgroup().orElseThrow(), oldest, grace, label)
              : Orphans.endByCookie(platform, tree.cookie(), oldest, grace, label);
      String outcome =
          report.survivors().isEmpty()
              ? "ended by "
                  + report.endedBy()
                  + " ("
                  + report.killed().size()
                  + " killed), owner "
                  + tree.owner().reason()
              : "NOT ended, survivors: " + report.survivors();
      reports.add(new ReapReport(tree, Optional.of(report), outcome));
    }
    return reports;
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

  /** Empty when the tree is still what was found and may be ended; else why not. */
  private Optional<String> stillOrphaned(FoundTree tree, Set<Long> protectedPids) {
    for (Member m : tree.members()) {
      if (protectedPids.contains(m.pid())) {
        return Optional.of("holds this process or one of its ancestors (pid " + m.pid() + ")");
      }
    }
    ProcessTable now = platform.snapshot();
    Owner again =
        tree.kind() == FoundTree.Kind.CGROUP
            ? cgroupOwner(tree.id(), now.bootId())
            : cookieOwner(tree.id(), now.bootId());
    if (again.verdict() != OwnerVerdict.GONE) {
      return Optional.of("owner no longer proven gone: " + again.reason());
    }
    if (tree.members().isEmpty()) {
      return Optional.of("no member left");
    }
    return Optional.empty();
  }

  /**
   * Why {@code tree} must be left alone because ending it would end a tree whose owner is not
   * proven gone (a lifecycle program inside it that runs trees of its own, e.g. a broker its
   * creator left running), or empty.
   */
  private Optional<String> holdsAnotherOwnersTree(FoundTree tree, List<FoundTree> all) {
    Set<Long> reach = new HashSet<>();
    if (tree.kind() == FoundTree.Kind.CGROUP) {
      try {
        reach.addAll(Cgroup.at(tree.cgroup().orElseThrow()).members());
      } catch (IOException | RuntimeException e) {
        return Optional.of("cannot read its cgroup: " + e.getMessage());
      }
    } else {
      ProcessTable table = platform.snapshot();
      for (Member m : tree.members()) {
        reach.add(m.pid());
        for (ProcessInfo d : table.descendants(m.pid())) {
          reach.add(d.pid());
        }
      }
    }
    // Its own members are its own; what else it reaches belongs to trees nested in it.
    for (Member m : tree.members()) {
      reach.remove(m.pid());
    }
    for (FoundTree other : all) {
      if (other == tree || other.owner().verdict() == OwnerVerdict.GONE) {
        continue;
      }
      for (Member m : other.members()) {
        if (reach.contains(m.pid())) {
          return Optional.of(
              "holds " + other.kind() + " tree " + other.id() + " of an owner not proven gone");
        }
      }
    }
    return Optional.empty();
  }

  private Set<Long> selfAndAncestors() {
    ProcessTable table = platform.snapshot();
    Set<Long> out = new HashSet<>();
    long pid = platform.self().pid();
    while (pid > 1 && out.add(pid)) {
      pid = table.get(pid).map(ProcessInfo::ppid).orElse(0L);
    }
    return out;
  }

  private Member member(ProcessInfo row, String boot, ProcessInfo later, long elapsedNanos) {
    double share = -1;
    if (later != null && elapsedNanos > 0 && later.startTime() == row.startTime()) {
      long cpu = later.cpuTime().toNanos() - row.cpuTime().toNanos();
      share = Math.max(0, (double) cpu / elapsedNanos);
    }
    String command =
        platform
            .commandLine(row.pid())
            .filter(argv -> !argv.isEmpty())
            .map(argv -> String.join(" ", argv))
            .orElse("[" + row.command() + "]");
    long rss =
        later != null && later.residentBytes() >= 0 ? later.residentBytes() : row.residentBytes();
    return new Member(row.identity(boot), row.ppid(), row.state(), command, share, rss);
  }

  private Owner cgroupOwner(String name, String boot) {
    long[] owner = OwnedCgroups.owner(name).orElseThrow();
    // A cgroup ends with its boot, so its owner ran in this one; 0 is "start time unknown".
    ProcessIdentity identity =
        new ProcessIdentity(
            owner[0], owner[1] > 0 ? owner[1] : ProcessIdentity.UNKNOWN_START, boot);
    return judge(identity);
  }

  private Owner cookieOwner(String cookie, String boot) {
    Optional<ProcessIdentity> named = SpawnOptions.cookieOwner(cookie);
    if (named.isEmpty()) {
      return new Owner(
          Optional.empty(),
          OwnerVerdict.NOT_PROVABLE,
          "the cookie names no owner (an older lifecycle, or set by hand)");
    }
    ProcessIdentity identity = named.get();
    if (!boot.isEmpty() && !identity.bootId().equals(boot)) {
      return new Owner(named, OwnerVerdict.GONE, "proven gone: recorded in another boot");
    }
    return judge(identity);
  }

  private Owner tetherOwner(ProcessInfo sidecar, String boot) {
    List<String> argv = platform.commandLine(sidecar.pid()).orElse(List.of());
    long pid;
    try {
      pid = Long.parseLong(argv.get(5));
    } catch (RuntimeException e) {
      return new Owner(Optional.empty(), OwnerVerdict.NOT_PROVABLE, "owner pid unreadable");
    }
    // The owner started the sidecar, so it started before it: a process at its pid that started
    // later is another one.
    Optional<ProcessInfo> at = platform.info(pid);
    ProcessIdentity recorded = new ProcessIdentity(pid, ProcessIdentity.UNKNOWN_START, boot);
    if (at.isEmpty() || at.get().hasExited()) {
      return judge(recorded);
    }
    if (at.get().startTime() > sidecar.startTime()) {
      return new Owner(
          Optional.of(recorded),
          OwnerVerdict.GONE,
          "proven gone: pid " + pid + " now belongs to a process started after the sidecar");
    }
    return new Owner(
        Optional.of(at.get().identity(boot)), OwnerVerdict.ALIVE, "alive (pid " + pid + ")");
  }

  private Owner judge(ProcessIdentity identity) {
    Liveness.Verdict verdict = Liveness.judge(platform, identity);
    Optional<ProcessIdentity> named = Optional.of(identity);
    return switch (verdict) {
      case ALIVE -> new Owner(named, OwnerVerdict.ALIVE, "alive (pid " + identity.pid() + ")");
      case GONE ->
          new Owner(
              named,
              OwnerVerdict.GONE,
              "proven gone: no process " + identity.pid() + " (or only its zombie)");
      case PID_REUSED ->
          new Owner(
              named,
              OwnerVerdict.GONE,
              "proven gone: pid " + identity.pid() + " now belongs to another process");
      case ALIVE_NOT_PERMITTED ->
          new Owner(
              named,
              OwnerVerdict.NOT_PROVABLE,
              "pid " + identity.pid() + " is alive and cannot be identified (EPERM, hidepid)");
    };
  }

  /**
   * The carriers of one cookie and their descendants that carry none (env -i, a rewritten area).
   */
  private static List<ProcessInfo> withDescendants(
      ProcessTable table,
      List<ProcessInfo> carriers,
      Map<Long, String> cookieOf,
      Set<Long> inCgroups,
      long self) {
    Map<Long, ProcessInfo> out = new LinkedHashMap<>();
    for (ProcessInfo c : carriers) {
      out.put(c.pid(), c);
    }
    List<ProcessInfo> queue = new ArrayList<>(carriers);
    while (!queue.isEmpty()) {
      ProcessInfo next = queue.remove(queue.size() - 1);
      for (ProcessInfo child : table.children(next.pid())) {
        if (!child.hasExited()
            && child.pid() != self
            && !cookieOf.containsKey(child.pid())
            && !inCgroups.contains(child.pid())
            && out.putIfAbsent(child.pid(), child) == null) {
          queue.add(child);
        }
      }
    }
    return new ArrayList<>(out.values());
  }

  /**
   * The cookie of the tree a cgroup was made for: the one its members carry that names the same
   * owner as the cgroup's name (a tree's cgroup and cookie are made by one process), or {@code ""}
   * for a cgroup that holds no such carrier.
   */
  private static String ownCookie(
      String name, List<ProcessInfo> members, Map<Long, String> cookieOf) {
    long[] owner = OwnedCgroups.owner(name).orElseThrow();
    for (ProcessInfo row : members) {
      String cookie = cookieOf.get(row.pid());
      Optional<ProcessIdentity> named =
          cookie == null ? Optional.empty() : SpawnOptions.cookieOwner(cookie);
      if (named.isPresent()
          && named.get().pid() == owner[0]
          && named.get().startTime() == owner[1]) {
        return cookie;
      }
    }
    return "";
  }

  /** Every owned cgroup under {@code dir}, nested ones included. */
  private static void ownedCgroups(Path dir, int depth, List<Path> out) {
    if (depth > MAX_CGROUP_DEPTH) {
      return;
    }
    for (Path child : subdirectories(dir)) {
      if (OwnedCgroups.owner(child.getFileName().toString()).isPresent()) {
        out.add(child);
      }
      ownedCgroups(child, depth + 1, out);
    }
  }

  /** The processes of {@code dir} and of its sub-cgroups that are not owned cgroups themselves. */
  private static Set<Long> directMembers(Path dir) {
    Set<Long> out = new HashSet<>();
    List<Path> pending = new ArrayList<>();
    pending.add(dir);
    while (!pending.isEmpty()) {
      Path next = pending.remove(pending.size() - 1);
      try {
        for (String line : Files.readAllLines(next.resolve("cgroup.procs"))) {
          if (!line.isEmpty()) {
            out.add(Long.parseLong(line.trim()));
          }
        }
      } catch (IOException | RuntimeException e) {
        continue; // removed meanwhile
      }
      for (Path child : subdirectories(next)) {
        if (OwnedCgroups.owner(child.getFileName().toString()).isEmpty()) {
          pending.add(child);
        }
      }
    }
    return out;
  }

  private static List<Path> subdirectories(Path dir) {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
      for (Path child : children) {
        if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
          out.add(child);
        }
      }
    } catch (IOException | RuntimeException e) {
      // unreadable or removed meanwhile: nothing of ours can be listed there
    }
    return out;
  }

  private static boolean isShell(String command) {
    return command.equals("sh") || command.equals("dash") || command.equals("bash");
  }

  private static boolean isTether(List<String> argv) {
    return argv.size() == 6 && argv.get(1).equals("-c") && argv.get(3).equals(TETHER_NAME);
  }

  private static double uptimeSeconds() {
    try {
      String text = Files.readString(Path.of("/proc/uptime"));
      return Double.parseDouble(text.substring(0, text.indexOf(' ')));
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private record Candidate(
      FoundTree.Kind kind,
      String id,
      Optional<Path> cgroup,
      String cookie,
      List<ProcessInfo> members) {}
}
