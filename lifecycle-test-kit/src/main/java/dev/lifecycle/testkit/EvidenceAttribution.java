package dev.lifecycle.testkit;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.testkit.LeakedProcess.Reason;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The evidence tier: a baseline of the process table, a background sampler of this JVM's new
 * descendants, and at each look the evidence {@link LeakTracker} lists, strongest first. The
 * sampler and the checks share the sightings under this object's lock.
 */
final class EvidenceAttribution implements AttributionTier {
  private final ProcessPlatform platform;
  private final LibraryTrees trees;
  private final String note;
  private final Baseline baseline;
  private final EnvironmentMarkers markers;
  private final Sightings sightings;
  private final Optional<ScheduledExecutorService> sampler;

  EvidenceAttribution(
      LeakOptions options, LibraryTrees trees, String note, Consumer<String> caveats) {
    this.platform = options.platform();
    this.trees = trees;
    this.note = note;
    this.baseline = Baseline.take(platform);
    this.markers = new EnvironmentMarkers(platform);
    this.sightings = new Sightings(platform, baseline, markers);
    if (!baseline.privateGroup() && baseline.selfGroup() > 1) {
      caveats.accept(
          "this JVM's process group "
              + baseline.selfGroup()
              + " is shared with other programs (e.g. another test JVM), so membership in it is"
              + " no evidence");
    }
    if (options.sampleEvery().isZero()) {
      this.sampler = Optional.empty();
    } else {
      ScheduledExecutorService s =
          Executors.newSingleThreadScheduledExecutor(Threads.daemons("lifecycle-leak-sampler"));
      long nanos = Polling.clampNanos(options.sampleEvery());
      s.scheduleWithFixedDelay(this::sampleQuietly, nanos, nanos, TimeUnit.NANOSECONDS);
      this.sampler = Optional.of(s);
    }
  }

  @Override
  public Attribution tier() {
    return Attribution.EVIDENCE;
  }

  @Override
  public String note() {
    return note;
  }

  @Override
  public synchronized void sample() {
    sightings.sampleNew();
  }

  private void sampleQuietly() {
    try {
      sample();
    } catch (RuntimeException e) {
      // a failed sample only loses evidence; the final check still runs
    }
  }

  @Override
  public synchronized Set<ProcessKey> seen() {
    return sightings.keys();
  }

  @Override
  public synchronized List<String> sampledChain(ProcessInfo p) {
    return sightings.chainOf(ProcessKey.of(p));
  }

  @Override
  public Blamed blame() {
    ProcessTable table = platform.snapshot();
    synchronized (this) {
      sightings.record(table);
      return new Blamed(Rows.of(table), attribute(table));
    }
  }

  private Map<Long, Reason> attribute(ProcessTable table) {
    long self = baseline.self();
    Set<Long> descendants = new HashSet<>();
    table.descendants(self).forEach(p -> descendants.add(p.pid()));
    Set<Long> library = trees.isEmpty() ? Set.of() : trees.pids();
    Set<String> cookies = new HashSet<>(sightings.cookies());
    cookies.addAll(trees.cookies());
    markers.inheritedCookie().ifPresent(cookies::remove);
    Map<Long, Reason> out = new LinkedHashMap<>();
    List<ProcessInfo> undecided = new ArrayList<>();
    for (ProcessInfo p : table.all()) {
      if (p.pid() == self || p.pid() <= 1 || p.hasExited() || baseline.contains(ProcessKey.of(p))) {
        continue;
      }
      Reason reason = null;
      if (library.contains(p.pid())) {
        reason = Reason.LIBRARY_TREE;
      } else if (descendants.contains(p.pid())) {
        reason = Reason.DESCENDANT;
      } else if (sightings.saw(ProcessKey.of(p))) {
        reason = Reason.SEEN_AS_DESCENDANT;
      } else if (markers.names(p, cookies)) {
        reason = Reason.COOKIE;
      } else if (baseline.privateGroup()
          && p.pgid() == baseline.selfGroup()
          && isOrphan(table, p)) {
        reason = Reason.JVM_GROUP;
      } else if (sightings.sharesGroupOrSession(p)) {
        reason = Reason.RELATIVE;
      }
      if (reason != null) {
        out.put(p.pid(), reason);
      } else {
        undecided.add(p);
      }
    }
    addRelatives(table, out, undecided);
    return out;
  }

  /** Blames, until nothing changes, whoever shares a group, session or parent with the blamed. */
  private void addRelatives(
      ProcessTable table, Map<Long, Reason> out, List<ProcessInfo> undecided) {
    boolean grew = true;
    while (grew && !undecided.isEmpty()) {
      grew = false;
      Set<Long> groups = new HashSet<>();
      Set<Long> sessions = new HashSet<>();
      for (long pid : out.keySet()) {
        table
            .get(pid)
            .ifPresent(
                p -> {
                  groups.add(p.pgid());
                  sessions.add(p.sid());
                });
      }
      groups.remove(baseline.selfGroup());
      sessions.remove(baseline.selfSession());
      for (var it = undecided.iterator(); it.hasNext(); ) {
        ProcessInfo p = it.next();
        if (groups.contains(p.pgid()) || sessions.contains(p.sid()) || out.containsKey(p.ppid())) {
          out.put(p.pid(), Reason.RELATIVE);
          it.remove();
          grew = true;
        }
      }
    }
  }

  private static boolean isOrphan(ProcessTable table, ProcessInfo p) {
    return p.ppid() <= 1 || table.get(p.ppid()).isEmpty();
  }

  @Override
  public void close() {
    sampler.ifPresent(ScheduledExecutorService::shutdownNow);
  }
}
