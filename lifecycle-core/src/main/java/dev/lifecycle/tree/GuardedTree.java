package dev.lifecycle.tree;

import dev.lifecycle.guard.Breach;
import dev.lifecycle.guard.Enforcement;
import dev.lifecycle.guard.watchdog.Watchdog;
import dev.lifecycle.guard.watchdog.Watched;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.CgroupCeilings;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link ProcessTree} as the watchdog sees it: members from the cgroup's {@code cgroup.procs} and
 * CPU time from its {@code cpu.stat}, both kept open (CGROUP tier), or from a cheap scan of the
 * tick's shared snapshot (SESSION tier; the cookie search is left to termination). Thread-safe:
 * what it keeps between samples, the open files included, is used on the sampler thread only.
 */
final class GuardedTree implements Watched {
  private final ProcessPlatform platform;
  private final TreeScanner scanner;
  private final Optional<Cgroup> cgroup;
  private final CgroupFiles files; // null without a cgroup

  /** The watch of a tree without ceilings: a class, not a lambda, so a cold spawn links none. */
  static final Watchdog.Registration NONE = new Unwatched();

  private static final class Unwatched implements Watchdog.Registration {
    @Override
    public void close() {}
  }

  private static final Enforcement NO_CEILING =
      new Enforcement(java.util.Set.of(), java.util.Set.of(), "no ceiling set");

  private final ProcessTree end;
  private final String label;
  private final long selfPid;
  private Map<Long, Long> remembered = Map.of(); // pid -> start time, last sample's members
  private long oomKills;
  private long pidsRefused;

  private GuardedTree(
      ProcessPlatform platform,
      TreeScanner scanner,
      Optional<Cgroup> cgroup,
      ProcessTree end,
      String label) {
    this.platform = platform;
    this.scanner = scanner;
    this.cgroup = cgroup;
    this.files = cgroup.map(CgroupFiles::new).orElse(null);
    this.end = end;
    this.label = label;
    this.selfPid = platform.self().pid();
    this.oomKills =
        cgroup.isPresent() ? CgroupCeilings.counter(cgroup.get(), "memory.events", "oom_kill") : -1;
    this.pidsRefused =
        cgroup.isPresent() ? CgroupCeilings.counter(cgroup.get(), "pids.events", "max") : -1;
  }

  /** Registers the tree with the shared watchdog; nothing is started when no ceiling is set. */
  static Watchdog.Registration watch(
      ProcessPlatform platform,
      TreeScanner scanner,
      Optional<Cgroup> cgroup,
      TreeOptions options,
      Enforcement enforcement,
      ProcessTree end,
      String label) {
    if (!options.ceilings().anyEnabled()) {
      return NONE;
    }
    return Watchdog.shared()
        .watch(
            new GuardedTree(platform, scanner, cgroup, end, label),
            platform,
            options.ceilings(),
            enforcement);
  }

  /** The enforcement of a tree without a cgroup: everything is the watchdog's. */
  static Enforcement watchdogOnly(TreeOptions options, String tierReason) {
    if (!options.ceilings().anyEnabled()) {
      return NO_CEILING;
    }
    return new Enforcement(
        java.util.Set.of(),
        CgroupCeilings.enabledKinds(options.ceilings()),
        options.ceilings().anyEnabled() ? "SESSION tier: " + tierReason : "no ceiling set");
  }

  /** CGROUP tier: the kernel's limits written to {@code own} where they can be, before it runs. */
  static Enforcement inCgroup(Cgroup parent, Cgroup own, TreeOptions options) {
    return options.ceilings().anyEnabled()
        ? CgroupCeilings.apply(parent, own, options.ceilings())
        : watchdogOnly(options, "");
  }

  @Override
  public boolean needsTable() {
    return cgroup.isEmpty();
  }

  @Override
  public List<ProcessInfo> members(ProcessTable table) throws IOException {
    if (cgroup.isEmpty()) {
      return sessionMembers(table);
    }
    List<ProcessInfo> out = new ArrayList<>();
    for (long pid : memberPids()) {
      platform.info(pid).filter(row -> !row.hasExited()).ifPresent(out::add);
    }
    return out;
  }

  /**
   * The cgroup's own {@code cgroup.procs}, and its sub-cgroups' only when {@code cgroup.stat} says
   * there are any: listing the directory to find them costs a stat per interface file.
   */
  @Override
  public List<Long> memberPids() throws IOException {
    if (cgroup.isEmpty()) {
      return null;
    }
    Cgroup c = cgroup.get();
    if (files.counter(CgroupFiles.STAT, "nr_descendants") != 0) {
      return new ArrayList<>(c.members()); // sub-cgroups, or cgroup.stat unreadable
    }
    List<Long> own = files.processes();
    if (own != null && !own.isEmpty()) {
      return own;
    }
    // Empty: the tree is gone, or its members moved into a sub-cgroup after the counter was read
    // (an empty list ends the watch, so it must include the sub-cgroups).
    return new ArrayList<>(c.members());
  }

  /**
   * The cheap scan, in O(members) on the tick's shared index: the session and the group while the
   * leader pins their ids, the members of the last sample still there (same start time), and the
   * descendants of all of those by parentage. The environment-cookie search is termination's.
   */
  private List<ProcessInfo> sessionMembers(ProcessTable table) {
    Scope scope = scanner.scope();
    Index index = Index.of(table);
    Map<Long, ProcessInfo> found = new LinkedHashMap<>();
    ProcessInfo anchor = table.get(scope.anchor().pid()).orElse(null);
    boolean pinned = anchor != null && anchor.startTime() == scope.anchor().startTime();
    if (pinned) {
      if (scope.anchorIsMember()) {
        found.put(anchor.pid(), anchor);
      }
      if (scope.sessionId() > 0) {
        putAll(found, index.bySession.get(scope.sessionId()));
      }
      if (scope.ownsGroup()) {
        putAll(found, index.byGroup.get(scope.groupId()));
      }
    }
    for (Map.Entry<Long, Long> seen : remembered.entrySet()) {
      ProcessInfo row = table.get(seen.getKey()).orElse(null);
      if (row != null && row.startTime() == seen.getValue()) {
        found.put(row.pid(), row);
      }
    }
    java.util.ArrayDeque<Long> roots = new java.util.ArrayDeque<>(found.keySet());
    if (pinned) {
      roots.add(anchor.pid());
    }
    java.util.Set<Long> visited = new java.util.HashSet<>();
    while (!roots.isEmpty()) {
      long root = roots.poll();
      if (visited.add(root)) {
        for (ProcessInfo child : index.children(root)) {
          found.put(child.pid(), child);
          roots.add(child.pid());
        }
      }
    }
    List<ProcessInfo> out = new ArrayList<>(found.size());
    Map<Long, Long> next = new java.util.HashMap<>();
    for (ProcessInfo row : found.values()) {
      if (row.pid() <= 1
          || row.pid() == selfPid
          || (!scope.anchorIsMember() && row.pid() == scope.anchor().pid())) {
        continue;
      }
      next.put(row.pid(), row.startTime());
      if (!row.hasExited()) {
        out.add(row);
      }
    }
    remembered = next;
    return out;
  }

  private static void putAll(Map<Long, ProcessInfo> into, List<ProcessInfo> rows) {
    if (rows != null) {
      for (ProcessInfo row : rows) {
        into.put(row.pid(), row);
      }
    }
  }

  /** One snapshot indexed by session, group and parent, built once per tick for every tree. */
  private static final class Index {
    private static Index last; // the sampler thread's; trees of one tick share it

    final ProcessTable table;
    final Map<Long, List<ProcessInfo>> bySession = new java.util.HashMap<>();
    final Map<Long, List<ProcessInfo>> byGroup = new java.util.HashMap<>();
    final Map<Long, List<ProcessInfo>> byParent = new java.util.HashMap<>();

    private Index(ProcessTable table) {
      this.table = table;
      for (ProcessInfo row : table.all()) {
        bySession.computeIfAbsent(row.sid(), k -> new ArrayList<>()).add(row);
        byGroup.computeIfAbsent(row.pgid(), k -> new ArrayList<>()).add(row);
        byParent.computeIfAbsent(row.ppid(), k -> new ArrayList<>()).add(row);
      }
    }

    static synchronized Index of(ProcessTable table) {
      Index i = last;
      if (i == null || i.table != table) {
        i = new Index(table);
        last = i;
      }
      return i;
    }

    List<ProcessInfo> children(long pid) {
      return byParent.getOrDefault(pid, List.of());
    }
  }

  @Override
  public long cumulativeCpuNanos() {
    if (cgroup.isEmpty()) {
      return -1;
    }
    long micros = files.counter(CgroupFiles.CPU, "usage_usec");
    return micros >= 0 ? micros * 1000 : CgroupCeilings.cpuNanos(cgroup.get());
  }

  @Override
  public void unwatched() {
    if (files != null) {
      files.close();
    }
  }

  @Override
  public Breach kernelBreach() {
    if (cgroup.isEmpty()) {
      return null;
    }
    Cgroup c = cgroup.get();
    long kills = CgroupCeilings.counter(c, "memory.events", "oom_kill");
    if (kills > Math.max(oomKills, 0)) {
      oomKills = kills;
      long max = CgroupCeilings.counter(c, "memory.events", "max");
      return new Breach(
          Breach.Kind.MEMORY,
          Math.max(peak(c), 0),
          limit(c, "memory.max"),
          Duration.ZERO,
          Enforcement.By.KERNEL,
          List.of("memory.events: oom_kill " + kills + ", max " + max));
    }
    long refused = CgroupCeilings.counter(c, "pids.events", "max");
    if (refused > Math.max(pidsRefused, 0)) {
      pidsRefused = refused;
      return new Breach(
          Breach.Kind.PROCESSES,
          limit(c, "pids.max") + 1,
          limit(c, "pids.max"),
          Duration.ZERO,
          Enforcement.By.KERNEL,
          List.of("pids.events: max " + refused + " (forks refused)"));
    }
    return null;
  }

  private static long peak(Cgroup c) {
    try {
      return Long.parseLong(java.nio.file.Files.readString(c.path().resolve("memory.peak")).trim());
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  private static long limit(Cgroup c, String file) {
    try {
      return Long.parseLong(java.nio.file.Files.readString(c.path().resolve(file)).trim());
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  @Override
  public void end(Breach breach) {
    end.endFor(breach);
  }

  @Override
  public String label() {
    return label;
  }
}
