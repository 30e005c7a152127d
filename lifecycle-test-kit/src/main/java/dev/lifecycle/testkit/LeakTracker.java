package dev.lifecycle.testkit;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.testkit.LeakedProcess.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * Finds the processes a piece of code left behind: takes a baseline of the process table, samples
 * this JVM's descendants in the background while the code runs, and after it ends attributes every
 * new live process to it on evidence (see {@link LeakedProcess.Reason}). Zombies are never leaks.
 * The JUnit {@link ProcessLeakExtension} is built on it; use it directly outside JUnit.
 *
 * <p>Attribution, in order: the parent chain reaches this JVM; the process was seen as a descendant
 * in a sample; its environment carries {@link FixtureChild#OWNER_VARIABLE} naming this JVM or a
 * {@link SpawnOptions#COOKIE_VARIABLE} value seen on one of this JVM's descendants; it joined this
 * JVM's process group; or it shares a group or session (other than this JVM's), or a parent chain,
 * with a process attributed so far, or with a group or session seen among the descendants. A new
 * orphan with none of that evidence is not counted, so unrelated processes of other programs on the
 * machine are never flagged (and an escapee that is never seen, carries no cookie and shares
 * nothing is missed).
 */
public final class LeakTracker implements AutoCloseable {
  /** Sampling period: catches intermediates living 100 ms or more, for ~1-2% of one core. */
  public static final Duration DEFAULT_SAMPLE_EVERY = Duration.ofMillis(100);

  /** Bound on the cleanup: SIGKILL ends a process in milliseconds; the rest covers a busy box. */
  static final Duration KILL_VERIFY = Duration.ofSeconds(5);

  /** Rounds of kill-and-rescan: a forking leak may start children while being killed. */
  private static final int KILL_ROUNDS = 5;

  private static final int CHAIN_DEPTH = 8;

  private final ProcessPlatform platform;
  private final List<Pattern> ignore;
  private final String testName;
  private final String caveat;
  private final long self;
  private final long selfGroup;
  private final long selfSession;
  private final String owner;
  private final Set<Key> baseline;
  private final ScheduledExecutorService sampler;

  private final Map<Key, List<String>> seen = new HashMap<>();
  private final Set<Long> seenGroups = new HashSet<>();
  private final Set<Long> seenSessions = new HashSet<>();
  private final Set<String> seenCookies = new HashSet<>();

  private record Key(long pid, long startTime) {
    static Key of(ProcessInfo p) {
      return new Key(p.pid(), p.startTime());
    }
  }

  private LeakTracker(
      ProcessPlatform platform,
      Duration sampleEvery,
      List<Pattern> ignore,
      String testName,
      String caveat) {
    this.platform = Objects.requireNonNull(platform, "platform");
    this.ignore = List.copyOf(ignore);
    this.testName = Objects.requireNonNull(testName, "testName");
    this.caveat = Objects.requireNonNull(caveat, "caveat");
    this.self = platform.self().pid();
    this.selfGroup = platform.selfProcessGroup();
    this.owner = FixtureChild.ownerValue();
    ProcessTable table = platform.snapshot();
    this.selfSession = table.get(self).map(ProcessInfo::sid).orElse(-1L);
    Set<Key> keys = new HashSet<>();
    for (ProcessInfo p : table.all()) {
      keys.add(Key.of(p));
    }
    this.baseline = Set.copyOf(keys);
    if (sampleEvery.isZero()) {
      this.sampler = null;
    } else {
      this.sampler =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "lifecycle-leak-sampler");
                t.setDaemon(true);
                return t;
              });
      long nanos = Polling.clampNanos(sampleEvery);
      sampler.scheduleWithFixedDelay(this::sampleQuietly, nanos, nanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Takes the baseline now and starts sampling.
   *
   * @param sampleEvery the background sampling period, {@link Duration#ZERO} for none
   * @param ignore processes whose command line matches one of these are never reported
   * @param testName what the report attributes leaks to
   * @param caveat a note for the report ({@code ""} for none)
   */
  public static LeakTracker start(
      ProcessPlatform platform,
      Duration sampleEvery,
      List<Pattern> ignore,
      String testName,
      String caveat) {
    return new LeakTracker(platform, sampleEvery, ignore, testName, caveat);
  }

  /** A tracker with the default sampling period, no filters and no caveat. */
  public static LeakTracker start(String testName) {
    return start(ProcessPlatform.get(), DEFAULT_SAMPLE_EVERY, List.of(), testName, "");
  }

  /** Samples the table once now (the background sampler does this periodically). */
  public void sample() {
    record(platform.snapshot());
  }

  /** Identities of every process seen as a descendant of this JVM since the baseline. */
  public synchronized Set<ProcessIdentity> seenDescendants() {
    String boot = platform.snapshot().bootId();
    Set<ProcessIdentity> out = new HashSet<>();
    for (Key k : seen.keySet()) {
      out.add(new ProcessIdentity(k.pid, k.startTime, boot));
    }
    return out;
  }

  private void sampleQuietly() {
    try {
      sample();
    } catch (RuntimeException e) {
      // a failed sample only loses evidence; the final check still runs
    }
  }

  private synchronized void record(ProcessTable table) {
    for (ProcessInfo p : table.descendants(self)) {
      Key key = Key.of(p);
      if (baseline.contains(key) || p.hasExited() || seen.containsKey(key)) {
        continue;
      }
      seen.put(key, chain(table, p));
      if (p.pgid() > 1 && p.pgid() != selfGroup) {
        seenGroups.add(p.pgid());
      }
      if (p.sid() > 1 && p.sid() != selfSession) {
        seenSessions.add(p.sid());
      }
      Environ.get(p.pid(), SpawnOptions.COOKIE_VARIABLE).ifPresent(seenCookies::add);
    }
  }

  /**
   * Waits up to {@code linger} (polling with backoff) for every attributed process to exit by
   * itself, then reports the ones left. Does not kill them: see {@link #kill(LeakReport)}.
   */
  public LeakReport check(Duration linger) {
    long started = System.nanoTime();
    AtomicReference<Map<Long, Reason>> found = new AtomicReference<>();
    AtomicReference<ProcessTable> last = new AtomicReference<>();
    Polling.until(
        linger,
        () -> {
          last.set(platform.snapshot());
          record(last.get());
          found.set(attribute(last.get()));
          return found.get().isEmpty();
        });
    Duration waited = Duration.ofNanos(System.nanoTime() - started);
    return new LeakReport(testName, describe(last.get(), found.get()), waited, List.of(), caveat);
  }

  /**
   * Kills every leak of {@code report}, and any process attributed while doing so, with an
   * identity-checked SIGKILL (whole groups at once when the platform can and every member is a
   * leak), then verifies they are gone (zombies count as gone) within a bound.
   *
   * @return the report with the pids that survived (empty when the cleanup worked)
   */
  public LeakReport kill(LeakReport report) {
    Map<Long, ProcessIdentity> targets = new LinkedHashMap<>();
    for (LeakedProcess leak : report.leaks()) {
      targets.put(leak.pid(), leak.identity());
    }
    for (int round = 0; round < KILL_ROUNDS && !targets.isEmpty(); round++) {
      ProcessTable table = platform.snapshot();
      killGroups(table, targets.keySet());
      for (ProcessIdentity id : targets.values()) {
        platform.signal(id, Signal.KILL);
      }
      Polling.until(
          KILL_VERIFY.dividedBy(KILL_ROUNDS),
          () -> targets.values().stream().allMatch(id -> platform.probe(id) != Liveness.ALIVE));
      targets.clear();
      ProcessTable after = platform.snapshot();
      attribute(after)
          .keySet()
          .forEach(pid -> after.identity(pid).ifPresent(id -> targets.put(pid, id)));
    }
    List<Long> survivors = new ArrayList<>(targets.keySet());
    return report.withSurvivors(survivors);
  }

  private void killGroups(ProcessTable table, Set<Long> leaks) {
    if (!platform.capabilities().groupSignals()) {
      return;
    }
    Set<Long> groups = new HashSet<>();
    for (long pid : leaks) {
      table.get(pid).map(ProcessInfo::pgid).ifPresent(groups::add);
    }
    for (long pgid : groups) {
      if (pgid <= 1 || pgid == selfGroup) {
        continue;
      }
      boolean allLeaks =
          table.group(pgid).stream()
              .filter(p -> !p.hasExited())
              .allMatch(p -> leaks.contains(p.pid()));
      if (allLeaks) {
        try {
          platform.signalGroup(pgid, Signal.KILL);
        } catch (RuntimeException e) {
          // per-process kills below still run
        }
      }
    }
  }

  private synchronized Map<Long, Reason> attribute(ProcessTable table) {
    Set<Long> descendants = new HashSet<>();
    table.descendants(self).forEach(p -> descendants.add(p.pid()));
    Set<Long> ownerPids = null;
    Map<Long, Reason> out = new LinkedHashMap<>();
    List<ProcessInfo> undecided = new ArrayList<>();
    for (ProcessInfo p : table.all()) {
      if (p.pid() == self || p.pid() <= 1 || p.hasExited() || baseline.contains(Key.of(p))) {
        continue;
      }
      Reason reason = null;
      if (descendants.contains(p.pid())) {
        reason = Reason.DESCENDANT;
      } else if (seen.containsKey(Key.of(p))) {
        reason = Reason.SEEN_AS_DESCENDANT;
      } else {
        Optional<String> cookie = Environ.get(p.pid(), SpawnOptions.COOKIE_VARIABLE);
        Optional<String> mark = Environ.get(p.pid(), FixtureChild.OWNER_VARIABLE);
        if (cookie.isEmpty() && mark.isEmpty()) {
          if (ownerPids == null) {
            ownerPids = platform.findByEnvironment(FixtureChild.OWNER_VARIABLE, owner);
          }
          if (ownerPids.contains(p.pid())) {
            reason = Reason.COOKIE;
          }
        } else if (mark.filter(owner::equals).isPresent()
            || cookie.filter(seenCookies::contains).isPresent()) {
          reason = Reason.COOKIE;
        }
        if (reason == null && selfGroup > 1 && p.pgid() == selfGroup) {
          reason = Reason.JVM_GROUP;
        } else if (reason == null
            && (seenGroups.contains(p.pgid()) || seenSessions.contains(p.sid()))) {
          reason = Reason.RELATIVE;
        }
      }
      if (reason != null) {
        out.put(p.pid(), reason);
      } else {
        undecided.add(p);
      }
    }
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
      groups.remove(selfGroup);
      sessions.remove(selfSession);
      for (var it = undecided.iterator(); it.hasNext(); ) {
        ProcessInfo p = it.next();
        if (groups.contains(p.pgid()) || sessions.contains(p.sid()) || out.containsKey(p.ppid())) {
          out.put(p.pid(), Reason.RELATIVE);
          it.remove();
          grew = true;
        }
      }
    }
    out.keySet().removeIf(pid -> isIgnored(table, pid));
    return out;
  }

  private boolean isIgnored(ProcessTable table, long pid) {
    if (ignore.isEmpty()) {
      return false;
    }
    String line = commandLine(table, pid);
    return ignore.stream().anyMatch(p -> p.matcher(line).find());
  }

  private String commandLine(ProcessTable table, long pid) {
    return platform
        .commandLine(pid)
        .filter(l -> !l.isEmpty())
        .map(l -> String.join(" ", l))
        .orElseGet(() -> table.get(pid).map(ProcessInfo::command).orElse("?"));
  }

  private List<LeakedProcess> describe(ProcessTable table, Map<Long, Reason> found) {
    List<LeakedProcess> out = new ArrayList<>();
    Instant now = Instant.now();
    for (Map.Entry<Long, Reason> e : found.entrySet()) {
      Optional<ProcessInfo> row = table.get(e.getKey());
      if (row.isEmpty()) {
        continue;
      }
      ProcessInfo p = row.get();
      Duration age =
          ProcessHandle.of(p.pid())
              .flatMap(h -> h.info().startInstant())
              .map(start -> Duration.between(start, now))
              .filter(d -> !d.isNegative())
              .orElse(Duration.ZERO);
      List<String> parents = chain(table, p);
      List<String> sampled = seen.get(Key.of(p));
      if (sampled != null && !sampled.equals(parents)) {
        parents = new ArrayList<>(parents);
        parents.add("(earlier: " + String.join(" <- ", sampled) + ")");
      }
      out.add(
          new LeakedProcess(
              p.identity(table.bootId()),
              commandLine(table, p.pid()),
              parents,
              age,
              p.cpuTime(),
              p.state(),
              e.getValue()));
    }
    return out;
  }

  private List<String> chain(ProcessTable table, ProcessInfo p) {
    List<String> out = new ArrayList<>();
    long ppid = p.ppid();
    for (int i = 0; i < CHAIN_DEPTH && ppid > 0; i++) {
      if (ppid == self) {
        out.add(ppid + " (this JVM)");
        break;
      }
      Optional<ProcessInfo> parent = table.get(ppid);
      if (parent.isEmpty()) {
        out.add(ppid + " (gone)");
        break;
      }
      out.add(ppid + " (" + parent.get().command() + ")");
      ppid = parent.get().ppid();
    }
    return out;
  }

  /** Stops the background sampler. Idempotent. */
  @Override
  public void close() {
    if (sampler != null) {
      sampler.shutdownNow();
    }
  }
}
