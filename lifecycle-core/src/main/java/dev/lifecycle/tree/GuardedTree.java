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
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A {@link ProcessTree} as the watchdog sees it: members from the cgroup's {@code cgroup.procs}
 * (CGROUP tier) or from a cheap scan of the tick's shared snapshot (SESSION tier; the cookie search
 * is left to termination). Thread-safe: the scanner is, and the kernel counters are read on the
 * sampler thread only.
 */
final class GuardedTree implements Watched {
  private final ProcessPlatform platform;
  private final TreeScanner scanner;
  private final Optional<Cgroup> cgroup;
  private final Consumer<Breach> end;
  private final String label;
  private long oomKills;
  private long pidsRefused;

  private GuardedTree(
      ProcessPlatform platform,
      TreeScanner scanner,
      Optional<Cgroup> cgroup,
      Consumer<Breach> end,
      String label) {
    this.platform = platform;
    this.scanner = scanner;
    this.cgroup = cgroup;
    this.end = end;
    this.label = label;
    this.oomKills =
        cgroup.map(c -> CgroupCeilings.counter(c, "memory.events", "oom_kill")).orElse(-1L);
    this.pidsRefused = cgroup.map(c -> CgroupCeilings.counter(c, "pids.events", "max")).orElse(-1L);
  }

  /** Registers the tree with the shared watchdog; nothing is started when no ceiling is set. */
  static Watchdog.Registration watch(
      ProcessPlatform platform,
      TreeScanner scanner,
      Optional<Cgroup> cgroup,
      TreeOptions options,
      Enforcement enforcement,
      Consumer<Breach> end,
      String label) {
    if (!options.ceilings().anyEnabled()) {
      return () -> {};
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
      TreeView view = scanner.scan(table, false).view();
      List<ProcessInfo> out = new ArrayList<>();
      for (TreeMember m : view.members()) {
        table.get(m.pid()).ifPresent(out::add);
      }
      for (TreeMember m : view.escapees()) {
        table.get(m.pid()).ifPresent(out::add);
      }
      return out;
    }
    List<ProcessInfo> out = new ArrayList<>();
    for (long pid : cgroup.get().members()) {
      platform.info(pid).filter(row -> !row.hasExited()).ifPresent(out::add);
    }
    return out;
  }

  @Override
  public long cumulativeCpuNanos() {
    return cgroup.isPresent() ? CgroupCeilings.cpuNanos(cgroup.get()) : -1;
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
    end.accept(breach);
  }

  @Override
  public String label() {
    return label;
  }
}
