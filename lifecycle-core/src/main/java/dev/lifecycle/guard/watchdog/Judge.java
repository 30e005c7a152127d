package dev.lifecycle.guard.watchdog;

import dev.lifecycle.guard.Breach;
import dev.lifecycle.guard.BreachHandler;
import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.guard.Enforcement;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One watched tree's rules and the state they need between samples: CPU time per member, the
 * trailing window of the CPU ceiling, the start of the current spin. Confined to the sampler thread
 * but {@link #nextDue()}, which the loop reads under its lock.
 */
final class Judge {
  private static final LazyLogger LOG = LazyLogger.of(Judge.class);

  /** Slowest sampling: memory and process ceilings are levels, a second is soon enough. */
  static final Duration MAX_INTERVAL = Duration.ofSeconds(1);

  /** Fastest sampling, for short windows: below this the sampler costs more than it tells. */
  static final Duration MIN_INTERVAL = Duration.ofMillis(100);

  /** Samples per window: a spin must hold through several, so one lucky sample is no spin. */
  private static final int SAMPLES_PER_WINDOW = 5;

  /** After a handler kept the tree, the same ceiling is quiet at least this long. */
  private static final Duration QUIET_AFTER_KEEP = Duration.ofMinutes(1);

  private static final int TOP = 3;

  private final Watched tree;
  private final ProcessPlatform platform;
  private final Ceilings ceilings;
  private final Enforcement enforcement;
  private final long interval;
  private final int cores = Runtime.getRuntime().availableProcessors();
  private volatile long nextDue;

  private Map<Long, Long> lastCpu = new HashMap<>(); // pid ^ start time -> cpu nanos
  private long lastCumulative = -1;
  private long lastWall;
  private boolean primed;
  private long lastRowsWall;
  private boolean rowsPrimed;
  private final ArrayDeque<long[]> history = new ArrayDeque<>(); // {span nanos, cpu nanos}
  private long historySpan;
  private long historyCpu;
  private long spinSince = -1;
  private long spinCpu;
  private final long[] quietUntil = new long[Breach.Kind.values().length];

  Judge(Watched tree, ProcessPlatform platform, Ceilings c, Enforcement e, long now) {
    this.tree = tree;
    this.platform = platform;
    this.ceilings = c;
    this.enforcement = e;
    this.interval = intervalNanos(c);
    this.nextDue = now;
  }

  /**
   * A fifth of the shortest CPU window, between {@link #MIN_INTERVAL} and {@link #MAX_INTERVAL}.
   */
  static long intervalNanos(Ceilings c) {
    long shortest = MAX_INTERVAL.toNanos() * SAMPLES_PER_WINDOW;
    if (c.cpu().isEnabled()) {
      shortest = Math.min(shortest, c.cpu().window().toNanos());
    }
    if (c.spin().isEnabled()) {
      shortest = Math.min(shortest, c.spin().window().toNanos());
    }
    return Math.max(MIN_INTERVAL.toNanos(), Math.min(MAX_INTERVAL.toNanos(), shortest / 5));
  }

  Watched tree() {
    return tree;
  }

  ProcessPlatform platform() {
    return platform;
  }

  long nextDue() {
    return nextDue;
  }

  long interval() {
    return interval;
  }

  /**
   * Samples the tree once and applies every rule. A tree that lists its members cheaply and keeps
   * its own CPU time (a cgroup) has its members' rows read only when a rule needs them: for the
   * watchdog's memory ceiling, while the tree is at or above a CPU rule's share, and to name the
   * top members of a breach. An idle tree then costs its membership and CPU files only.
   *
   * @return {@code false} when the tree is gone or was ended: stop watching it
   */
  boolean tick(ProcessTable table, long now) {
    nextDue = now + interval;
    List<Long> pids;
    List<ProcessInfo> members;
    try {
      pids = tree.memberPids();
      members = pids == null ? tree.members(table) : null;
    } catch (IOException e) {
      LOG.debug("runaway guard: cannot read the members of {}", tree.label(), e);
      return true;
    }
    // Before "gone": a tree the kernel's limit ended is still reported with its breach.
    if (!enforcement.kernel().isEmpty()) {
      Breach byKernel = tree.kernelBreach();
      if (byKernel != null && act(byKernel, now)) {
        return false;
      }
    }
    if (members != null ? members.isEmpty() : pids.isEmpty()) {
      return false;
    }
    boolean byMemory = watches(Breach.Kind.MEMORY) && ceilings.memoryBytes() > 0;
    boolean cpuByWatchdog = cpuJudged();
    long cumulative = cpuByWatchdog ? tree.cumulativeCpuNanos() : -1;
    long span = now - lastWall;
    if (members == null
        && (byMemory || (cpuByWatchdog && cumulative < 0) || isHot(cumulative, span))) {
      members = rows(pids);
    }
    long[] deltas = null;
    long live = 0;
    long rss = 0;
    boolean rssKnown = false;
    long rowsSpan = 0;
    if (members != null) {
      rowsSpan = now - lastRowsWall;
      deltas = memberDeltas(members, now);
      for (int i = 0; i < members.size(); i++) {
        live += deltas[i];
        ProcessInfo m = members.get(i);
        if (m.residentBytes() >= 0) {
          rss += m.residentBytes();
          rssKnown = true;
        }
      }
    }
    long delta =
        cumulative >= 0 && lastCumulative >= 0 ? Math.max(0, cumulative - lastCumulative) : live;
    lastCumulative = cumulative;
    lastWall = now;
    boolean judgeCpu = primed && span > 0;
    primed = true;

    int count = members != null ? members.size() : pids.size();
    List<Breach> found = new ArrayList<>(2);
    if (watches(Breach.Kind.PROCESSES)
        && ceilings.processes() > 0
        && count > ceilings.processes()) {
      found.add(breach(Breach.Kind.PROCESSES, count, ceilings.processes(), Duration.ZERO));
    }
    if (byMemory && rssKnown && rss > ceilings.memoryBytes()) {
      found.add(breach(Breach.Kind.MEMORY, rss, ceilings.memoryBytes(), Duration.ZERO));
    }
    if (judgeCpu) {
      // A late-found member's old time is not this interval's.
      Breach byCpu = cpuRules(span, Math.min(delta, span * cores));
      if (byCpu != null) {
        found.add(byCpu);
      }
    }
    for (Breach b : found) {
      if (isQuiet(b.kind(), now)) {
        continue;
      }
      if (members == null) {
        members = rows(pids);
        rowsSpan = now - lastRowsWall;
        deltas = memberDeltas(members, now);
      }
      if (act(withTop(b, members, deltas, rowsSpan), now)) {
        return false;
      }
    }
    return true;
  }

  /** Whether a CPU rule is the watchdog's: then the tree's CPU time is read every sample. */
  private boolean cpuJudged() {
    return (ceilings.cpu().isEnabled() && watches(Breach.Kind.CPU)) || ceilings.spin().isEnabled();
  }

  /** Whether the tree's share since the last sample reaches the lowest share a CPU rule judges. */
  private boolean isHot(long cumulative, long span) {
    if (cumulative < 0 || lastCumulative < 0 || span <= 0) {
      return false;
    }
    double floor = Double.MAX_VALUE;
    if (ceilings.cpu().isEnabled() && watches(Breach.Kind.CPU)) {
      floor = ceilings.cpu().share();
    }
    if (ceilings.spin().isEnabled()) {
      floor = Math.min(floor, ceilings.spin().share());
    }
    return (double) (cumulative - lastCumulative) / span >= floor;
  }

  /** The live rows of {@code pids}; a member gone since the listing is left out. */
  private List<ProcessInfo> rows(List<Long> pids) {
    List<ProcessInfo> out = new ArrayList<>(pids.size());
    for (long pid : pids) {
      platform.info(pid).filter(row -> !row.hasExited()).ifPresent(out::add);
    }
    return out;
  }

  /**
   * Each member's CPU time since the members' rows were last read, and those times kept for the
   * next read. A member first seen after the first read started since then: all its time is new.
   */
  private long[] memberDeltas(List<ProcessInfo> members, long now) {
    Map<Long, Long> cpu = new HashMap<>(members.size() * 2);
    long[] deltas = new long[members.size()];
    for (int i = 0; i < members.size(); i++) {
      ProcessInfo m = members.get(i);
      long key = m.pid() * 1_000_003L ^ m.startTime();
      long time = m.cpuTime().toNanos();
      cpu.put(key, time);
      Long before = lastCpu.get(key);
      deltas[i] = before != null ? Math.max(0, time - before) : rowsPrimed ? time : 0;
    }
    lastCpu = cpu;
    lastRowsWall = now;
    rowsPrimed = true;
    return deltas;
  }

  private boolean isQuiet(Breach.Kind kind, long now) {
    long until = quietUntil[kind.ordinal()];
    return until != 0 && until - now > 0;
  }

  private Breach cpuRules(long span, long delta) {
    Ceilings.CpuRule cpu = ceilings.cpu();
    if (cpu.isEnabled() && watches(Breach.Kind.CPU)) {
      history.addLast(new long[] {span, delta});
      historySpan += span;
      historyCpu += delta;
      long window = cpu.window().toNanos();
      while (history.size() > 1 && historySpan - history.peekFirst()[0] >= window) {
        long[] first = history.removeFirst();
        historySpan -= first[0];
        historyCpu -= first[1];
      }
      double average = (double) historyCpu / historySpan;
      if (historySpan >= window && average > cpu.share()) {
        return breach(Breach.Kind.CPU, average, cpu.share(), cpu.window());
      }
    }
    Ceilings.CpuRule spin = ceilings.spin();
    if (spin.isEnabled()) {
      double share = (double) delta / span;
      if (share >= spin.share()) {
        if (spinSince < 0) {
          spinSince = lastWall - span;
          spinCpu = 0;
        }
        spinCpu += delta;
        long spun = lastWall - spinSince;
        if (spun >= spin.window().toNanos()) {
          return breach(Breach.Kind.SPIN, (double) spinCpu / spun, spin.share(), spin.window());
        }
      } else {
        spinSince = -1; // one sample below the share: a burst, not a spin
      }
    }
    return null;
  }

  private boolean watches(Breach.Kind kind) {
    return !enforcement.kernel().contains(kind) || kind == Breach.Kind.SPIN;
  }

  private static Breach breach(Breach.Kind kind, double measured, double limit, Duration window) {
    return new Breach(kind, measured, limit, window, Enforcement.By.WATCHDOG, List.of());
  }

  private Breach withTop(Breach b, List<ProcessInfo> members, long[] deltas, long span) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      order.add(i);
    }
    boolean byMemory = b.kind() == Breach.Kind.MEMORY;
    order.sort(
        (x, y) ->
            byMemory
                ? Long.compare(members.get(y).residentBytes(), members.get(x).residentBytes())
                : Long.compare(deltas[y], deltas[x]));
    List<String> top = new ArrayList<>();
    for (int i = 0; i < Math.min(TOP, order.size()); i++) {
      ProcessInfo m = members.get(order.get(i));
      double share = span > 0 ? (double) deltas[order.get(i)] / span : 0;
      top.add(
          String.format(
              Locale.ROOT,
              "%d %s (%.2f core, %.1f MiB)",
              m.pid(),
              m.command(),
              share,
              Math.max(0, m.residentBytes()) / (1024.0 * 1024.0)));
    }
    return new Breach(b.kind(), b.measured(), b.limit(), b.window(), b.by(), top);
  }

  /** Logs, asks the handler, ends the tree unless kept. @return {@code true} if ended */
  private boolean act(Breach breach, long now) {
    int kind = breach.kind().ordinal();
    if (isQuiet(breach.kind(), now)) {
      return false;
    }
    LOG.warn(
        "runaway guard: tree {} breached {}; enforcement {}", tree.label(), breach, enforcement);
    BreachHandler.Verdict verdict;
    try {
      verdict = ceilings.handler().onBreach(breach);
    } catch (RuntimeException e) {
      LOG.warn("runaway guard: the breach handler of {} failed; ending the tree", tree.label(), e);
      verdict = BreachHandler.Verdict.TERMINATE;
    }
    if (verdict != BreachHandler.Verdict.KEEP) {
      tree.end(breach);
      return true;
    }
    long quiet = Math.max(QUIET_AFTER_KEEP.toNanos(), breach.window().toNanos());
    quietUntil[kind] = now + quiet;
    if (quietUntil[kind] == 0) {
      quietUntil[kind] = 1;
    }
    if (breach.kind() == Breach.Kind.SPIN) {
      spinSince = -1;
    } else if (breach.kind() == Breach.Kind.CPU) {
      history.clear();
      historySpan = 0;
      historyCpu = 0;
    }
    return false;
  }
}
