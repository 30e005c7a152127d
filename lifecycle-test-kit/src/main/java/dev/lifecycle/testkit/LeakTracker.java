package dev.lifecycle.testkit;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.testkit.LeakedProcess.Reason;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.SpawnedTrees;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeMember;
import java.io.IOException;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;

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
  /** The default sampling period of the evidence tier. */
  public static final Duration DEFAULT_SAMPLE_EVERY = LeakOptions.DEFAULT_SAMPLE_EVERY;

  /** Bound on the cleanup: SIGKILL ends a process in milliseconds; the rest covers a busy box. */
  static final Duration KILL_VERIFY = Duration.ofSeconds(5);

  /** Rounds of kill-and-rescan: a forking leak may start children while being killed. */
  private static final int KILL_ROUNDS = 5;

  private static final int CHAIN_DEPTH = 8;

  /** Every process some check of this JVM reported: never reported twice. */
  private static final Set<Key> REPORTED = ConcurrentHashMap.newKeySet();

  private final LeakOptions options;
  private final ProcessPlatform platform;
  private final String testName;
  private final List<String> caveats = new ArrayList<>();
  private final long self;
  private final long selfGroup;
  private final String owner;
  private final Optional<String> inheritedCookie;
  private final Attribution tier;
  private final String tierNote;
  private final Optional<TestCgroup> cgroup;
  private final List<ProcessTree> trees = new CopyOnWriteArrayList<>();
  private final SpawnedTrees.Registration registration;
  private final Optional<ScheduledExecutorService> sampler;

  // Evidence tier state (guarded by this).
  private final Set<Key> baseline;
  private final long selfSession;
  private final boolean privateGroup;
  private final Map<Key, List<String>> seen = new HashMap<>();
  private final Map<Long, ProcessInfo> seenRows = new HashMap<>();
  private final Set<Long> seenGroups = new HashSet<>();
  private final Set<Long> seenSessions = new HashSet<>();
  private final Set<String> seenCookies = new HashSet<>();
  private final Map<Key, Markers> markers = new HashMap<>();
  private Set<Long> listed = Set.of();

  record Key(long pid, long startTime) {
    static Key of(ProcessInfo p) {
      return new Key(p.pid(), p.startTime());
    }
  }

  /** The two environment entries the evidence tier reads, read once per process. */
  private record Markers(Optional<String> cookie, Optional<String> owner) {}

  private LeakTracker(LeakOptions options, String testName, Optional<LeakTracker> enclosing) {
    this.options = Objects.requireNonNull(options, "options");
    this.platform = options.platform();
    this.testName = Objects.requireNonNull(testName, "testName");
    this.self = platform.self().pid();
    this.selfGroup = platform.selfProcessGroup();
    this.owner = FixtureChild.ownerValue();
    this.inheritedCookie = Optional.ofNullable(System.getenv(SpawnOptions.COOKIE_VARIABLE));
    this.registration = SpawnedTrees.listen(trees::add);
    Optional<TestCgroup> entered = Optional.empty();
    String note = "";
    if (options.attribution() != Attribution.EVIDENCE) {
      try {
        entered = Optional.of(TestCgroup.enter(testName, enclosing.flatMap(t -> t.cgroup)));
        note = "cgroup " + entered.get();
      } catch (TestCgroup.Unavailable e) {
        if (options.attribution() == Attribution.CGROUP) {
          registration.close();
          throw new IllegalStateException(
              "attribution CGROUP was required for " + testName + " but " + e.getMessage(), e);
        }
        note = "cgroup tier unavailable: " + e.getMessage();
      }
    }
    this.cgroup = entered;
    this.tier = entered.isPresent() ? Attribution.CGROUP : Attribution.EVIDENCE;
    this.tierNote = note;
    if (entered.isPresent()) {
      this.baseline = Set.of();
      this.selfSession = -1;
      this.privateGroup = false;
      this.sampler = Optional.empty();
      return;
    }
    ProcessTable table = platform.snapshot();
    this.selfSession = table.get(self).map(ProcessInfo::sid).orElse(-1L);
    Set<Key> keys = new HashSet<>();
    Set<Long> pids = new HashSet<>();
    for (ProcessInfo p : table.all()) {
      keys.add(Key.of(p));
      pids.add(p.pid());
    }
    this.baseline = Set.copyOf(keys);
    this.listed = pids;
    this.privateGroup = isPrivateGroup(table);
    if (!privateGroup && selfGroup > 1) {
      caveats.add(
          "this JVM's process group "
              + selfGroup
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
    return tier;
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
    if (tier == Attribution.EVIDENCE) {
      sampleNew();
    }
  }

  /**
   * Identities of every process seen as a descendant of this JVM since the baseline.
   *
   * @return the identities, whether or not the processes still run
   */
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

  /** Lists the pids and reads only those not listed last time: O(new processes) reads. */
  private synchronized void sampleNew() {
    List<Long> now = platform.pids();
    Set<Long> fresh = new HashSet<>(now);
    List<Long> unseen = new ArrayList<>();
    for (long pid : now) {
      if (!listed.contains(pid)) {
        unseen.add(pid);
      }
    }
    listed = fresh;
    unseen.sort(null); // parents before children, as pids are handed out upwards
    for (long pid : unseen) {
      platform.info(pid).ifPresent(this::consider);
    }
  }

  private void consider(ProcessInfo p) {
    Key key = Key.of(p);
    if (baseline.contains(key) || p.hasExited() || seen.containsKey(key)) {
      return;
    }
    if (p.ppid() != self && !seenRows.containsKey(p.ppid())) {
      return;
    }
    seenRows.put(p.pid(), p);
    List<String> chain = new ArrayList<>();
    long ppid = p.ppid();
    for (int i = 0; i < CHAIN_DEPTH && ppid > 0; i++) {
      if (ppid == self) {
        chain.add(ppid + " (this JVM)");
        break;
      }
      ProcessInfo parent = seenRows.get(ppid);
      if (parent == null) {
        break;
      }
      chain.add(ppid + " (" + parent.command() + ")");
      ppid = parent.ppid();
    }
    remember(p, key, chain);
  }

  private synchronized void record(ProcessTable table) {
    for (ProcessInfo p : table.descendants(self)) {
      Key key = Key.of(p);
      if (baseline.contains(key) || p.hasExited() || seen.containsKey(key)) {
        continue;
      }
      seenRows.put(p.pid(), p);
      remember(p, key, chain(table::get, p));
    }
  }

  private void remember(ProcessInfo p, Key key, List<String> chain) {
    seen.put(key, chain);
    if (p.pgid() > 1 && p.pgid() != selfGroup) {
      seenGroups.add(p.pgid());
    }
    if (p.sid() > 1 && p.sid() != selfSession) {
      seenSessions.add(p.sid());
    }
    markers(p)
        .cookie()
        .filter(c -> !inheritedCookie.equals(Optional.of(c)))
        .ifPresent(seenCookies::add);
  }

  /** Whether the environment area reads as empty: inside execve, a kernel thread or env -i. */
  private boolean hasEmptyEnvironment(long pid) {
    // The entry asked for does not matter: only the area's state is looked at.
    ProcessPlatform.EnvironmentEntry entry =
        platform.environmentEntry(pid, SpawnOptions.COOKIE_VARIABLE, "");
    return entry == ProcessPlatform.EnvironmentEntry.EMPTY
        || entry == ProcessPlatform.EnvironmentEntry.INSIDE_EXEC;
  }

  private Markers markers(ProcessInfo p) {
    Key key = Key.of(p);
    Markers known = markers.get(key);
    if (known != null) {
      return known;
    }
    Markers read =
        new Markers(
            platform.environmentValue(p.pid(), SpawnOptions.COOKIE_VARIABLE),
            platform.environmentValue(p.pid(), FixtureChild.OWNER_VARIABLE));
    // An empty environment is a process inside execve (or a kernel thread): not proof of absence.
    if (read.cookie().isPresent() || read.owner().isPresent() || !hasEmptyEnvironment(p.pid())) {
      markers.put(key, read);
    }
    return read;
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
    leaveCgroup();
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
      REPORTED.add(new Key(leak.pid(), leak.identity().startTime()));
    }
    return new LeakReport(
        testName,
        tier,
        tierNote,
        found.get(),
        waited,
        options.action(),
        List.of(),
        List.of(),
        caveat());
  }

  private String caveat() {
    List<String> all = new ArrayList<>(caveats);
    cgroup
        .map(TestCgroup::shared)
        .filter(s -> !s.isEmpty())
        .ifPresent(
            s ->
                all.add(
                    "a concurrent check ("
                        + s
                        + ") ran while this JVM was in this check's cgroup: what it forked"
                        + " meanwhile is in this cgroup too"));
    return String.join("; ", all);
  }

  private void leaveCgroup() {
    if (cgroup.isPresent()) {
      try {
        cgroup.get().leave();
      } catch (IOException e) {
        throw new IllegalStateException("cannot move this JVM out of " + cgroup.get(), e);
      }
    }
  }

  /** The leaks now: attributed, alive, not shared, ignored or reported before. */
  private List<LeakedProcess> find() {
    Rows rows;
    Map<Long, Reason> reasons;
    if (cgroup.isPresent()) {
      rows = Rows.lazy(platform);
      reasons = new LinkedHashMap<>();
      for (long pid : cgroup.get().members()) {
        reasons.put(pid, Reason.CGROUP);
      }
      libraryPids().forEach(pid -> reasons.putIfAbsent(pid, Reason.LIBRARY_TREE));
    } else {
      ProcessTable table = platform.snapshot();
      synchronized (this) {
        record(table);
        rows = Rows.of(table);
        reasons = attribute(table);
      }
    }
    List<LeakedProcess> out = new ArrayList<>();
    Instant now = Instant.now();
    for (Map.Entry<Long, Reason> e : reasons.entrySet()) {
      long pid = e.getKey();
      if (pid == self || pid <= 1) {
        continue;
      }
      Optional<ProcessInfo> row = rows.get(pid);
      if (row.isEmpty() || row.get().hasExited()) {
        continue;
      }
      ProcessInfo p = row.get();
      if (REPORTED.contains(Key.of(p))) {
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

  /** Live pids of the trees the library spawned since the start (members and escapees). */
  private Set<Long> libraryPids() {
    Set<Long> out = new HashSet<>();
    for (ProcessTree tree : trees) {
      try {
        for (TreeMember m : tree.view().all()) {
          out.add(m.pid());
        }
      } catch (RuntimeException e) {
        // a tree that cannot be scanned now gives no evidence this round
      }
    }
    return out;
  }

  private Map<Long, Reason> attribute(ProcessTable table) {
    Set<Long> descendants = new HashSet<>();
    table.descendants(self).forEach(p -> descendants.add(p.pid()));
    Set<Long> library = trees.isEmpty() ? Set.of() : libraryPids();
    Set<String> cookies = new HashSet<>(seenCookies);
    trees.forEach(t -> cookies.add(t.cookie()));
    inheritedCookie.ifPresent(cookies::remove);
    Map<Long, Reason> out = new LinkedHashMap<>();
    List<ProcessInfo> undecided = new ArrayList<>();
    for (ProcessInfo p : table.all()) {
      if (p.pid() == self || p.pid() <= 1 || p.hasExited() || baseline.contains(Key.of(p))) {
        continue;
      }
      Reason reason = null;
      if (library.contains(p.pid())) {
        reason = Reason.LIBRARY_TREE;
      } else if (descendants.contains(p.pid())) {
        reason = Reason.DESCENDANT;
      } else if (seen.containsKey(Key.of(p))) {
        reason = Reason.SEEN_AS_DESCENDANT;
      } else {
        Markers m = markers(p);
        if (m.owner().filter(owner::equals).isPresent()
            || m.cookie().filter(cookies::contains).isPresent()) {
          reason = Reason.COOKIE;
        } else if (privateGroup && p.pgid() == selfGroup && isOrphan(table, p)) {
          reason = Reason.JVM_GROUP;
        } else if (seenGroups.contains(p.pgid()) || seenSessions.contains(p.sid())) {
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
    return out;
  }

  /**
   * Whether, at the baseline, only this JVM, its ancestors and its descendants were in its group:
   * then an orphan joining it later is ours. Under surefire with several forks (or any parent that
   * runs other programs in its group) it is shared, and membership is no evidence.
   */
  private boolean isPrivateGroup(ProcessTable table) {
    if (selfGroup <= 1) {
      return false;
    }
    Set<Long> ours = new HashSet<>();
    ours.add(self);
    table.descendants(self).forEach(p -> ours.add(p.pid()));
    for (long at = table.get(self).map(ProcessInfo::ppid).orElse(0L); at > 1; ) {
      ours.add(at);
      at = table.get(at).map(ProcessInfo::ppid).orElse(0L);
    }
    for (ProcessInfo p : table.group(selfGroup)) {
      if (!p.hasExited() && !ours.contains(p.pid())) {
        return false;
      }
    }
    return true;
  }

  private static boolean isOrphan(ProcessTable table, ProcessInfo p) {
    return p.ppid() <= 1 || table.get(p.ppid()).isEmpty();
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
    List<KilledProcess> kills = new ArrayList<>();
    Map<Long, ProcessIdentity> all = new LinkedHashMap<>();
    Map<Long, String> commands = new HashMap<>();
    for (LeakedProcess leak : report.leaks()) {
      all.put(leak.pid(), leak.identity());
      commands.put(leak.pid(), leak.commandLine());
    }
    Map<Long, ProcessIdentity> targets = new LinkedHashMap<>(all);
    List<ProcessTree> leaking = treesOf(all.keySet());
    if (cgroup.isPresent()) {
      killCgroup(cgroup.get(), targets, commands, kills);
    }
    for (int round = 0; round < KILL_ROUNDS && !targets.isEmpty(); round++) {
      ProcessTable table = platform.snapshot();
      Map<Long, String> how = killGroups(table, targets.keySet());
      for (Map.Entry<Long, ProcessIdentity> t : targets.entrySet()) {
        platform.signal(t.getValue(), Signal.KILL);
        kills.add(
            new KilledProcess(
                t.getValue(),
                commands.getOrDefault(t.getKey(), "?"),
                how.getOrDefault(t.getKey(), "SIGKILL (identity-checked)"),
                round > 0));
      }
      Map<Long, ProcessIdentity> killed = new LinkedHashMap<>(targets);
      Polling.until(
          KILL_VERIFY.dividedBy(KILL_ROUNDS),
          () -> killed.values().stream().allMatch(id -> platform.probe(id) != Liveness.ALIVE));
      targets.clear();
      for (LeakedProcess again : find()) {
        if (!all.containsKey(again.pid())) {
          targets.put(again.pid(), again.identity());
          all.put(again.pid(), again.identity());
          commands.put(again.pid(), again.commandLine());
        }
      }
    }
    endTrees(leaking, all.keySet(), kills);
    List<Long> survivors = new ArrayList<>();
    for (Map.Entry<Long, ProcessIdentity> e : all.entrySet()) {
      if (platform.probe(e.getValue()) == Liveness.ALIVE) {
        survivors.add(e.getKey());
      }
    }
    survivors.addAll(targets.keySet());
    return report.afterKills(kills, survivors.stream().distinct().toList());
  }

  private void killCgroup(
      TestCgroup group,
      Map<Long, ProcessIdentity> targets,
      Map<Long, String> commands,
      List<KilledProcess> kills) {
    try {
      group.freeze(true);
      try {
        Set<Long> members = group.members();
        Map<Long, LeakedProcess> leaksNow = new HashMap<>();
        for (LeakedProcess l : find()) {
          leaksNow.put(l.pid(), l);
        }
        List<Long> inside = new ArrayList<>();
        for (long pid : members) {
          if (targets.containsKey(pid)) {
            inside.add(pid);
          } else if (leaksNow.containsKey(pid)) {
            LeakedProcess l = leaksNow.get(pid);
            targets.put(pid, l.identity());
            commands.put(pid, l.commandLine());
            inside.add(pid);
            kills.add(new KilledProcess(l.identity(), l.commandLine(), "cgroup.kill", true));
          } else if (pid != self) {
            group.moveOut(pid); // ignored or shared: it must outlive the kill
          }
        }
        for (long pid : inside) {
          ProcessIdentity id = targets.remove(pid);
          if (kills.stream().noneMatch(k -> k.identity().pid() == pid)) {
            kills.add(new KilledProcess(id, commands.getOrDefault(pid, "?"), "cgroup.kill", false));
          }
        }
        group.kill();
      } finally {
        group.freeze(false);
      }
      group.awaitEmpty(KILL_VERIFY);
    } catch (IOException e) {
      caveats.add("cgroup.kill failed (" + e.getMessage() + "): killed one by one instead");
    }
  }

  /** The trees spawned during the check that have a process among {@code pids}. */
  private List<ProcessTree> treesOf(Set<Long> pids) {
    List<ProcessTree> out = new ArrayList<>();
    for (ProcessTree tree : trees) {
      try {
        if (pids.contains(tree.leaderIdentity().pid())
            || tree.view().all().stream().anyMatch(m -> pids.contains(m.pid()))) {
          out.add(tree);
        }
      } catch (RuntimeException e) {
        // cannot scan: leave the tree to its owner
      }
    }
    return out;
  }

  /**
   * Lets the library finish the trees whose processes were killed: reaps their leaders and removes
   * what the library set up for them. Anything it still had to signal is listed.
   */
  private static void endTrees(
      List<ProcessTree> leaking, Set<Long> killed, List<KilledProcess> kills) {
    for (ProcessTree tree : leaking) {
      TerminationReport r = tree.terminate(Duration.ZERO);
      Set<Long> signalled = new HashSet<>(r.terminated());
      signalled.addAll(r.killed());
      for (long pid : signalled) {
        if (!killed.contains(pid) && pid != tree.leaderIdentity().pid()) {
          kills.add(
              new KilledProcess(
                  ProcessIdentity.ofPid(pid), "?", "ProcessTree.terminate of " + tree, true));
        }
      }
    }
  }

  private Map<Long, String> killGroups(ProcessTable table, Set<Long> leaks) {
    Map<Long, String> how = new HashMap<>();
    if (!platform.capabilities().groupSignals()) {
      return how;
    }
    Set<Long> groups = new HashSet<>();
    for (long pid : leaks) {
      table.get(pid).map(ProcessInfo::pgid).ifPresent(groups::add);
    }
    for (long pgid : groups) {
      if (pgid <= 1 || pgid == selfGroup) {
        continue;
      }
      List<ProcessInfo> members = table.group(pgid).stream().filter(p -> !p.hasExited()).toList();
      boolean allLeaks = members.stream().allMatch(p -> leaks.contains(p.pid()));
      if (allLeaks) {
        try {
          platform.signalGroup(pgid, Signal.KILL);
          members.forEach(p -> how.put(p.pid(), "killpg " + pgid + " (every member a leak)"));
        } catch (RuntimeException e) {
          // per-process kills below still run
        }
      }
    }
    return how;
  }

  private LeakedProcess describe(Rows rows, ProcessInfo p, Reason reason, Instant now) {
    Duration age =
        ProcessHandle.of(p.pid())
            .flatMap(h -> h.info().startInstant())
            .map(start -> Duration.between(start, now))
            .filter(d -> !d.isNegative())
            .orElse(Duration.ZERO);
    List<String> parents = chain(rows::get, p);
    List<String> sampled;
    synchronized (this) {
      sampled = seen.get(Key.of(p));
    }
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

  private List<String> chain(LongFunction<Optional<ProcessInfo>> rows, ProcessInfo p) {
    List<String> out = new ArrayList<>();
    long ppid = p.ppid();
    for (int i = 0; i < CHAIN_DEPTH && ppid > 0; i++) {
      if (ppid == self) {
        out.add(ppid + " (this JVM)");
        break;
      }
      Optional<ProcessInfo> parent = rows.apply(ppid);
      if (parent.isEmpty()) {
        out.add(ppid + " (gone)");
        break;
      }
      out.add(ppid + " (" + parent.get().command() + ")");
      ppid = parent.get().ppid();
    }
    return out;
  }

  /**
   * Stops sampling and listening, and removes the tracker's cgroup. What a {@link LeakAction#WARN}
   * check left running in it is moved (never signalled) to the cgroup this JVM returned to, so the
   * cgroup can go. Idempotent.
   */
  @Override
  public void close() {
    sampler.ifPresent(ScheduledExecutorService::shutdownNow);
    registration.close();
    if (cgroup.isPresent()) {
      TestCgroup group = cgroup.get();
      try {
        group.leave();
      } catch (IOException e) {
        // nothing else can be done; the next remove attempt reports nothing either
      }
      group.moveAllOut();
      if (!group.remove()) {
        TestCgroup.park(group);
      }
    }
  }

  /** Row lookups: a full table (evidence tier) or per-pid reads (cgroup tier). */
  private interface Rows {
    Optional<ProcessInfo> get(long pid);

    String bootId();

    ProcessTable table();

    static Rows of(ProcessTable table) {
      return new Rows() {
        @Override
        public Optional<ProcessInfo> get(long pid) {
          return table.get(pid);
        }

        @Override
        public String bootId() {
          return table.bootId();
        }

        @Override
        public ProcessTable table() {
          return table;
        }
      };
    }

    /** Reads rows on demand, so a check costs O(members), not O(process table). */
    static Rows lazy(ProcessPlatform platform) {
      Map<Long, Optional<ProcessInfo>> cache = new HashMap<>();
      String boot = platform.self().bootId();
      return new Rows() {
        private ProcessTable table;

        @Override
        public Optional<ProcessInfo> get(long pid) {
          return cache.computeIfAbsent(pid, platform::info);
        }

        @Override
        public String bootId() {
          return boot;
        }

        @Override
        public ProcessTable table() {
          if (table == null) {
            // Only needed when something is declared shared: its parent chains.
            table =
                SharedProcesses.isEmpty()
                    ? ProcessTable.of(List.of(), boot, 0)
                    : platform.snapshot();
          }
          return table;
        }
      };
    }
  }
}
