package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.testkit.LeakedProcess.Reason;
import dev.lifecycle.tree.SpawnedTrees;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Finds the processes a piece of code left behind, kills them on request and says exactly what it
 * did. The JUnit {@link ProcessLeakExtension} and {@link ProcessLeakListener} are built on it; use
 * it directly outside JUnit. Not thread-safe except where noted: one thread starts, checks, kills
 * and closes a tracker (the background sampler is internal).
 *
 * <p>Two tiers ({@link Attribution}), the one in force named in every report:
 *
 * <ul>
 *   <li><b>CGROUP</b> (exact): the tracker creates a cgroup v2 and moves this JVM into it until
 *       {@link #check}; whatever is forked meanwhile is found in it or a cgroup below it, whatever
 *       it did to its session, parent or environment; trees the library contains in cgroups of
 *       their own are attributed through {@link SpawnedTrees}. Nothing else is blamed, so processes
 *       of other JVMs never are. No sampling.
 *   <li><b>EVIDENCE</b>: a baseline of the process table, a background sampler of this JVM's new
 *       descendants (it lists /proc and reads only processes it has not seen before), and at the
 *       check these kinds of evidence, in order: membership of a {@code ProcessTree} spawned during
 *       the check (told by the library itself, {@link SpawnedTrees}); a parent chain to this JVM,
 *       now or in a sample; an owner marker naming this JVM or a tree cookie of one of its spawns
 *       (a cookie this JVM inherited itself is no evidence); an orphan in this JVM's process group
 *       when nobody else shared that group at the baseline; a group, session or parent shared with
 *       an attributed process. A process with none of that is not blamed.
 * </ul>
 *
 * <p>Never blamed in either tier: zombies, this JVM, processes {@link SharedProcesses declared
 * shared}, processes the {@link LeakOptions} ignore, and processes an earlier check already
 * reported (so a class check does not repeat its methods' leaks).
 */
public final class LeakTracker implements AutoCloseable {
  /** Every process some check of this JVM reported: never reported twice. */
  private static final Set<ProcessKey> REPORTED = ConcurrentHashMap.newKeySet();

  private final LeakOptions options;
  private final ProcessPlatform platform;
  private final String testName;
  private final long self;
  private final List<String> caveats = new ArrayList<>();
  private final LibraryTrees trees;
  private final AttributionTier tier;
  private final LeakKiller killer;

  private LeakTracker(LeakOptions options, String testName, Optional<LeakTracker> enclosing) {
    this.options = Objects.requireNonNull(options, "options");
    this.platform = options.platform();
    this.testName = Objects.requireNonNull(testName, "testName");
    this.self = platform.self().pid();
    this.trees = new LibraryTrees();
    this.tier = enterTier(enclosing.flatMap(t -> t.tier.cgroup()));
    this.killer = new LeakKiller(options, tier, trees, this::find);
  }

  /** The cgroup tier where the options allow and the machine offers it, else the evidence tier. */
  private AttributionTier enterTier(Optional<TestCgroup> enclosing) {
    String note = "";
    if (options.attribution() != Attribution.EVIDENCE) {
      try {
        return CgroupAttribution.enter(options, testName, enclosing, trees, caveats::add);
      } catch (TestCgroup.Unavailable e) {
        if (options.attribution() == Attribution.CGROUP) {
          trees.close();
          throw new IllegalStateException(
              "attribution CGROUP was required for " + testName + " but " + e.getMessage(), e);
        }
        note = "cgroup tier unavailable: " + e.getMessage();
      }
    }
    return new EvidenceAttribution(options, trees, note, caveats::add);
  }

  /**
   * Starts tracking now: enters a cgroup where the options allow and the machine offers one, else
   * takes the evidence-tier baseline and starts sampling.
   *
   * @param options scope, linger, attribution and ignore rules
   * @param testName names the test in reports
   * @return a tracker to {@link #check(Duration)} and close when the test ends
   * @throws IllegalStateException when {@link Attribution#CGROUP} is required and unavailable
   */
  public static LeakTracker start(LeakOptions options, String testName) {
    return new LeakTracker(options, testName, Optional.empty());
  }

  /**
   * {@link #start(LeakOptions, String)} with {@link LeakOptions#defaults()}.
   *
   * @param testName names the test in reports
   * @return a tracker to {@link #check(Duration)} and close when the test ends
   */
  public static LeakTracker start(String testName) {
    return start(LeakOptions.defaults(), testName);
  }

  /** Starts a check nested in {@code enclosing} (a method inside its class). */
  static LeakTracker start(LeakOptions options, String testName, LeakTracker enclosing) {
    return new LeakTracker(options, testName, Optional.of(enclosing));
  }

  /**
   * The tier in force for this tracker.
   *
   * @return {@link Attribution#CGROUP} or {@link Attribution#EVIDENCE}, never {@link
   *     Attribution#AUTO}
   */
  public Attribution tier() {
    return tier.tier();
  }

  /**
   * Adds a note to every report of this tracker (e.g. why attribution may be imprecise).
   *
   * @param caveat the note; a blank one is ignored
   */
  public void addCaveat(String caveat) {
    if (!caveat.isBlank()) {
      caveats.add(caveat);
    }
  }

  /** Samples this JVM's new descendants once now (the background sampler does it periodically). */
  public void sample() {
    tier.sample();
  }

  /**
   * Identities of every process seen as a descendant of this JVM since the baseline.
   *
   * @return the identities, whether or not the processes still run
   */
  public Set<ProcessIdentity> seenDescendants() {
    String boot = platform.snapshot().bootId();
    Set<ProcessIdentity> out = new HashSet<>();
    for (ProcessKey k : tier.seen()) {
      out.add(new ProcessIdentity(k.pid(), k.startTime(), boot));
    }
    return out;
  }

  /**
   * In the cgroup tier, moves this JVM out of the tracker's cgroup; then waits up to {@code linger}
   * (polling with backoff) for every attributed process to exit by itself, and reports the ones
   * left. Kills nothing: see {@link #kill(LeakReport)}.
   *
   * @param linger how long attributed processes may take to exit; {@link Duration#ZERO} checks once
   * @return the attributed processes still running after {@code linger}, without the ignored, the
   *     declared shared and those an earlier check reported
   */
  public LeakReport check(Duration linger) {
    tier.beforeCheck();
    long started = System.nanoTime();
    AtomicReference<List<LeakedProcess>> found = new AtomicReference<>(List.of());
    int[] clean = {0};
    boolean settled =
        Polling.until(
            linger,
            () -> {
              found.set(find());
              clean[0] = found.get().isEmpty() ? clean[0] + 1 : 0;
              // Two clean looks in a row: one can fall into a fork or an execve in flight.
              return clean[0] >= 2;
            });
    if (!settled && clean[0] == 1) {
      found.set(find());
    }
    Duration waited = Duration.ofNanos(System.nanoTime() - started);
    for (LeakedProcess leak : found.get()) {
      REPORTED.add(new ProcessKey(leak.pid(), leak.identity().startTime()));
    }
    return new LeakReport(
        testName,
        tier.tier(),
        tier.note(),
        found.get(),
        waited,
        options.action(),
        List.of(),
        List.of(),
        caveat());
  }

  private String caveat() {
    List<String> all = new ArrayList<>(caveats);
    tier.caveat().ifPresent(all::add);
    return String.join("; ", all);
  }

  /** The leaks now: attributed, alive, not shared, ignored or reported before. */
  private List<LeakedProcess> find() {
    AttributionTier.Blamed blamed = tier.blame();
    Rows rows = blamed.rows();
    List<LeakedProcess> out = new ArrayList<>();
    Instant now = Instant.now();
    for (Map.Entry<Long, Reason> e : blamed.reasons().entrySet()) {
      long pid = e.getKey();
      if (pid == self || pid <= 1) {
        continue;
      }
      Optional<ProcessInfo> row = rows.get(pid);
      if (row.isEmpty() || row.get().hasExited()) {
        continue;
      }
      ProcessInfo p = row.get();
      if (REPORTED.contains(ProcessKey.of(p))) {
        continue;
      }
      Optional<String> cookie = platform.environmentValue(pid, SpawnOptions.COOKIE_VARIABLE);
      if (SharedProcesses.covers(p, rows.table(), cookie)) {
        continue;
      }
      LeakedProcess leak = describe(rows, p, e.getValue(), now);
      if (!options.isIgnored(leak)) {
        out.add(leak);
      }
    }
    return out;
  }

  private LeakedProcess describe(Rows rows, ProcessInfo p, Reason reason, Instant now) {
    Duration age =
        ProcessHandle.of(p.pid())
            .flatMap(h -> h.info().startInstant())
            .map(start -> Duration.between(start, now))
            .filter(d -> !d.isNegative())
            .orElse(Duration.ZERO);
    List<String> parents = Rows.chain(rows::get, self, p, true);
    List<String> sampled = tier.sampledChain(p);
    if (sampled != null && !sampled.isEmpty() && !sampled.equals(parents)) {
      parents = new ArrayList<>(parents);
      parents.add("(earlier: " + String.join(" <- ", sampled) + ")");
    }
    return new LeakedProcess(
        p.identity(rows.bootId()), commandLine(p), parents, age, p.cpuTime(), p.state(), reason);
  }

  private String commandLine(ProcessInfo p) {
    return platform
        .commandLine(p.pid())
        .filter(l -> !l.isEmpty())
        .map(l -> String.join(" ", l))
        .orElse(p.command());
  }

  /**
   * Kills every leak of {@code report} and reports each kill. In the cgroup tier: freezes the
   * cgroup, moves out whatever in it is not a leak (ignored or declared shared), then {@code
   * cgroup.kill}; everything that appeared in it meanwhile dies too and is listed. In the evidence
   * tier: identity-checked SIGKILL (whole groups at once when the platform can and every live
   * member is a leak), then re-scans up to a few rounds for children forked while dying, each
   * listed as found while killing. Then verifies (zombies count as gone) within a bound.
   *
   * @param report a report of {@link #check(Duration)}
   * @return the report with the kills and the pids that survived (empty when the cleanup worked)
   */
  public LeakReport kill(LeakReport report) {
    return killer.kill(report);
  }

  /**
   * Stops sampling and listening, and removes the tracker's cgroup. What a {@link LeakAction#WARN}
   * check left running in it is moved (never signalled) to the cgroup this JVM returned to, so the
   * cgroup can go. Idempotent.
   */
  @Override
  public void close() {
    tier.close();
    trees.close();
  }
}
