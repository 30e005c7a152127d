package dev.lifecycle.tree;

import dev.lifecycle.guard.Breach;
import dev.lifecycle.guard.Enforcement;
import dev.lifecycle.guard.watchdog.Watchdog;
import dev.lifecycle.internal.DetachMarks;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.cgroup.Cgroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A supervised child and everything it starts, owned as one unit: its process group and session,
 * its descendants by parentage, and every process that inherited its environment cookie, including
 * those that escaped with setsid or a double fork. Thread-safe.
 *
 * <pre>{@code
 * // Tether.spawnTree: bound to this JVM before the leader starts, so not even SIGKILL orphans it
 * try (ProcessTree tree = Tether.spawnTree(new ProcessBuilder("my-server", "--stdio"))) {
 *   Process leader = tree.leader(); // streams, waitFor, onExit as usual
 *   TerminationReport report = tree.terminate(Duration.ofSeconds(5)); // TERM, grace, KILL, verify
 *   if (!report.isComplete()) {
 *     System.err.println(report); // what survived, or what this tier cannot prove
 *   }
 * }
 * }</pre>
 *
 * <p>The leader is spawned in a session of its own and held unreaped after it exits, so the group
 * id cannot be reused while the tree may still signal it; it is reaped as the last step of {@link
 * #terminate}. {@link #close()} terminates with the default grace, so a try-with-resources block
 * leaves nothing behind. A tree never closed keeps an exited leader as a zombie child of this JVM,
 * one pid, until the JVM exits; closing a {@linkplain #detach() detached} tree leaves it running
 * and frees the leader's pid once it exits.
 *
 * <p>Guarantees depend on the platform ({@link ProcessPlatform#capabilities()}): with group signals
 * (the JNA platform) the group is signalled at once, atomically with respect to forks in flight;
 * without them (the pure-JDK fallback) every process found is signalled on its own by identity, so
 * a process forked between a scan and its signal is only caught by the next scan, and a leader the
 * JDK has reaped no longer pins the group and session ids (membership is then by parentage, cookie
 * and processes seen before).
 *
 * <p>Containment ({@link #tier()}): in the {@link ContainmentTier#CGROUP} tier the tree also has a
 * cgroup v2 of its own ({@link #cgroup()}), which the leader enters before its program's first
 * instruction (a shell writes itself in, then execs the program in place). Membership is then the
 * kernel's, termination ends in {@code cgroup.kill}, {@link #onExit()} fires on {@code populated
 * 0}, and the cgroup is removed once empty. Otherwise ({@link ContainmentTier#SESSION}) membership
 * is session, group, parentage and cookie, and reports are never complete: they say what that
 * cannot prove. {@link #tierReason()} says why.
 */
public final class ProcessTree implements AutoCloseable {
  private static final LazyLogger LOG = LazyLogger.of(ProcessTree.class);

  private final ProcessPlatform platform;
  private final SupervisedProcess leader;
  private final TreeOptions options;
  private final TreeScanner scanner;
  private final boolean groupSignals;
  private final TreeExit exit;
  private final AtomicBoolean detached = new AtomicBoolean();
  private final AtomicReference<CompletableFuture<TerminationReport>> termination =
      new AtomicReference<>();
  private final Optional<Cgroup> cgroup;
  private final String tierReason;
  private final String leaderText;
  private final Enforcement enforcement;
  private final AtomicReference<Breach> breach = new AtomicReference<>();
  // Empty until watch(); set to GuardedTree.NONE by the termination, whichever comes first.
  private final AtomicReference<Watchdog.Registration> guard = new AtomicReference<>();
  private final AtomicBoolean released = new AtomicBoolean();
  // Held by a termination for its whole run and by the reap of a released leader, so that no
  // reap frees the group id between a termination's check that the leader pins it and its signal.
  private final ReentrantLock leaderPin = new ReentrantLock();

  ProcessTree(
      ProcessPlatform platform,
      SupervisedProcess leader,
      TreeOptions options,
      Optional<Cgroup> cgroup,
      String tierReason,
      String leaderText,
      Enforcement enforcement) {
    this.platform = platform;
    this.enforcement = enforcement;
    this.leader = leader;
    this.options = options;
    this.cgroup = cgroup;
    this.tierReason = tierReason;
    this.leaderText = leaderText;
    this.groupSignals = leader.processGroupId() > 0 && platform.capabilities().groupSignals();
    this.scanner = new TreeScanner(platform, Scope.of(platform, leader));
    this.exit = new TreeExit(this, leader, scanner, cgroup);
  }

  /**
   * Starts the watchdog of the tree's ceilings, once it is built: the first sample may already
   * breach and end the tree, so it must not run before the constructor returns. A termination that
   * started first closes the registration here.
   */
  ProcessTree watch() {
    Watchdog.Registration registration =
        GuardedTree.watch(platform, scanner, cgroup, options, enforcement, this, label());
    if (!guard.compareAndSet(null, registration)) {
      registration.close();
    }
    return this;
  }

  /** The watchdog's way to end the tree: the breach becomes the report's reason. */
  void endFor(Breach b) {
    breach.compareAndSet(null, b);
    terminateAsync(options.grace());
  }

  /**
   * Spawns {@code builder}'s command as a tree on {@link ProcessPlatform#get()}.
   *
   * @param builder the leader's command, directory, environment and redirects
   * @return the running tree, with {@link TreeOptions#defaults()}
   * @throws IOException as {@link #spawn(ProcessPlatform, ProcessBuilder, TreeOptions)}
   */
  public static ProcessTree spawn(ProcessBuilder builder) throws IOException {
    return spawn(ProcessPlatform.get(), builder, TreeOptions.defaults());
  }

  /**
   * Spawns {@code builder}'s command as a tree on {@link ProcessPlatform#get()}.
   *
   * @param builder the leader's command, directory, environment and redirects
   * @param options grace and containment of the tree
   * @return the running tree
   * @throws IOException as {@link #spawn(ProcessPlatform, ProcessBuilder, TreeOptions)}
   */
  public static ProcessTree spawn(ProcessBuilder builder, TreeOptions options) throws IOException {
    return spawn(ProcessPlatform.get(), builder, options);
  }

  /**
   * Spawns {@code builder}'s command as a tree: a new session, the leader held unreaped after its
   * exit, a fresh cookie, and in the CGROUP tier a cgroup of its own.
   *
   * @param platform spawns, reads and signals the tree's processes
   * @param builder the leader's command, directory, environment and redirects
   * @param options grace and containment of the tree
   * @return the running tree
   * @throws IOException when the program cannot be started, or when the options require the CGROUP
   *     tier and it is not available (the message names the reason)
   */
  public static ProcessTree spawn(
      ProcessPlatform platform, ProcessBuilder builder, TreeOptions options) throws IOException {
    return SpawnedTrees.announce(
        TreeSpawn.spawn(
            platform, builder, options, SpawnOptions.newCookie(platform.self()), placement -> {}));
  }

  /**
   * {@link #spawn(ProcessPlatform, ProcessBuilder, TreeOptions)}, calling {@code beforeStart} with
   * the tree's cookie and cgroup after they exist and before the leader is started (and again if
   * the tree falls back to the SESSION tier). If the hook throws, nothing is started, the cgroup is
   * removed and the failure is rethrown (as an {@link IOException}).
   *
   * @param platform spawns, reads and signals the tree's processes
   * @param builder the leader's command, directory, environment and redirects
   * @param options grace and containment of the tree
   * @param beforeStart called with the cookie and cgroup before the leader starts
   * @return the running tree
   * @throws IOException as {@link #spawn(ProcessPlatform, ProcessBuilder, TreeOptions)}, or when
   *     {@code beforeStart} threw
   */
  public static ProcessTree spawn(
      ProcessPlatform platform,
      ProcessBuilder builder,
      TreeOptions options,
      Consumer<TreePlacement> beforeStart)
      throws IOException {
    Objects.requireNonNull(beforeStart, "beforeStart");
    return SpawnedTrees.announce(
        TreeSpawn.spawn(
            platform, builder, options, SpawnOptions.newCookie(platform.self()), beforeStart));
  }

  /**
   * The leader: streams, exit value, {@code onExit} of the leader alone.
   *
   * @return the process the tree was spawned as
   */
  public SupervisedProcess leader() {
    return leader;
  }

  /**
   * The leader's identity: pid, start time and boot id.
   *
   * @return the identity the tree's signals are checked against
   */
  public ProcessIdentity leaderIdentity() {
    return leader.identity();
  }

  /**
   * The tree's own process group (and session) id, or {@code -1} when it shares the JVM's.
   *
   * @return the pgid, which equals the leader's pid, or {@code -1}
   */
  public long processGroupId() {
    return leader.processGroupId();
  }

  /**
   * The session id, or {@code -1} when the leader does not lead a session of its own.
   *
   * @return the sid, which equals the leader's pid, or {@code -1}
   */
  public long sessionId() {
    return leader.isSessionLeader() ? leader.pid() : -1;
  }

  /**
   * The cookie every descendant inherits as {@link SpawnOptions#COOKIE_VARIABLE}.
   *
   * @return the cookie value
   */
  public String cookie() {
    return leader.treeCookie();
  }

  /**
   * The containment tier of this tree.
   *
   * @return {@link ContainmentTier#CGROUP} when the tree has a cgroup of its own, else {@link
   *     ContainmentTier#SESSION}
   */
  public ContainmentTier tier() {
    return cgroup.isPresent() ? ContainmentTier.CGROUP : ContainmentTier.SESSION;
  }

  /**
   * Where the tree's cgroup is, or why it has none (path and errno, or configuration).
   *
   * @return a human-readable reason, for logs and reports
   */
  public String tierReason() {
    return tierReason;
  }

  /**
   * The directory of the tree's own cgroup (CGROUP tier), e.g. to read its {@code memory.current}
   * or hand it to a monitor. The tree removes the directory once the cgroup is empty.
   *
   * @return the cgroup's directory, or empty in the SESSION tier
   */
  public Optional<Path> cgroup() {
    return cgroup.map(Cgroup::path);
  }

  /**
   * Which of this tree's ceilings ({@link TreeOptions#ceilings()}) the kernel enforces and which
   * the shared watchdog judges, and why (e.g. {@code watchdog: spin (SESSION tier: ...)}).
   *
   * @return the enforcement in force; {@link Enforcement#isNone()} when no ceiling is set
   */
  public Enforcement enforcement() {
    return enforcement;
  }

  /**
   * Whether this tree is ended with group signals (else process by process).
   *
   * @return {@code true} if signals go to the tree's process group with {@code killpg}
   */
  public boolean usesGroupSignals() {
    return groupSignals;
  }

  /**
   * The live processes of the tree now: in CGROUP tier the cgroup's members (O(members)), else one
   * process-table pass plus a cookie search.
   *
   * @return the members in the tree's group and the escapees outside it, alive now
   * @throws UncheckedIOException if the cgroup's member list cannot be read
   */
  public TreeView view() {
    if (cgroup.isEmpty()) {
      return scanner.scan(true).view();
    }
    try {
      return TreeView.ofCgroup(platform, cgroup.get(), leader);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The live members of the tree's own group now.
   *
   * @return the live processes in the tree's group; a new scan per call
   */
  public List<TreeMember> members() {
    return view().members();
  }

  /**
   * The live processes of the tree that left its group now.
   *
   * @return the live processes of the tree outside its group; a new scan per call
   */
  public List<TreeMember> escapees() {
    return view().escapees();
  }

  /**
   * Completes when the whole tree is gone: the leader exited and no member or escapee is alive.
   * Nothing polls while the leader runs; afterwards the tree is polled with backoff (20 ms doubling
   * to 1 s) only while descendants outlive the leader.
   *
   * @return a new future per call, completed with this tree
   */
  public CompletableFuture<ProcessTree> onExit() {
    return exit.onExit();
  }

  /**
   * {@link #terminate(Duration)} with the grace of this tree's {@link TreeOptions}.
   *
   * @return what the termination did and whether the tree is proven gone
   */
  public TerminationReport terminate() {
    return terminate(options.grace());
  }

  /**
   * Ends the tree: SIGTERM and SIGCONT, up to {@code grace} for it to exit, SIGKILL to what is
   * left, verification, then the escapee sweep; returns when that is done. Only the first call (of
   * this and {@link #terminateAsync}) runs and its grace counts; every call returns its report. An
   * interrupt cuts the grace short (straight to SIGKILL) and is kept set on return.
   *
   * @param grace how long the tree may take to exit after SIGTERM
   * @return what the termination did and whether the tree is proven gone
   */
  public TerminationReport terminate(Duration grace) {
    CompletableFuture<TerminationReport> mine = new CompletableFuture<>();
    if (termination.compareAndSet(null, mine)) {
      run(mine, grace);
    }
    return termination.get().join();
  }

  /**
   * Like {@link #terminate(Duration)}, on a thread of its own (not a daemon: it must finish).
   *
   * @param grace how long the tree may take to exit after SIGTERM
   * @return a new future per call, completed with the one termination's report
   */
  public CompletableFuture<TerminationReport> terminateAsync(Duration grace) {
    CompletableFuture<TerminationReport> mine = new CompletableFuture<>();
    if (termination.compareAndSet(null, mine)) {
      try {
        Threads.startKeepingJvm("lifecycle-terminate-" + leader.pid(), () -> run(mine, grace));
      } catch (Throwable t) { // no thread: every caller of terminate would otherwise wait forever
        mine.completeExceptionally(t);
        throw t;
      }
    }
    return termination.get().copy();
  }

  private void run(CompletableFuture<TerminationReport> result, Duration grace) {
    leaderPin.lock();
    try {
      Watchdog.Registration watched = guard.getAndSet(GuardedTree.NONE);
      if (watched != null) {
        watched.close();
      }
      Signaller signaller =
          new Signaller(platform, leader.identity(), scanner.scope().groupId(), groupSignals);
      signaller.endedFor(breach.get()); // set before the termination it caused was started
      Termination termination =
          Termination.of(
              platform, cgroup, scanner, leader, signaller, grace, options, tierReason, label());
      TerminationReport report = termination.run();
      // Only what was seen left is logged, not the SESSION tier's standing blind spot: a clean
      // close is the caller's to log, and the client path creates no logger.
      if (!report.noSurvivorSeen()) {
        LOG.warn("tree {} not proven gone: {}", leader.pid(), report);
      }
      Set<ProcessIdentity> seen =
          termination.membership() instanceof CgroupMembership c ? c.seen() : Set.of();
      AdoptedZombies.reap(platform, sessionId(), report, seen);
      result.complete(report);
      if (report.noSurvivorSeen()) { // what the SESSION tier's own onExit polling also waits for
        exit.gone();
      }
    } catch (Throwable t) {
      result.completeExceptionally(t);
      throw t;
    } finally {
      leaderPin.unlock();
      if (released.get() && !leader.isAlive()) {
        reapReleasedLeader(); // its exit may have come while this run held the pin
      }
    }
  }

  /** {@code <pid> (<command>)}; by concat, not {@code +}: no invokedynamic to link at close. */
  private String label() {
    return Long.toString(leader.pid()).concat(" (").concat(leaderText).concat(")");
  }

  /**
   * Lets the tree go on purpose: a daemon meant to outlive this owner. The tree is marked detached
   * where an inventory of the machine reads it (by its cgroup's name, else by its cookie), so a
   * later sweep of trees whose owner is gone shows it and leaves it alone unless asked; and {@link
   * #close()} no longer ends it ({@link #terminate} still does). A tree bound to a tether is still
   * ended by it when this JVM dies: close its binding too. Idempotent.
   *
   * <p>Closing a detached tree releases its leader: once the leader exits it is reaped, so the tree
   * holds no pid of this JVM. A later {@link #terminate} then no longer signals the group by its id
   * (which may name another group by then): it ends the cgroup's members, or every process it finds
   * by cookie and parentage, each by identity.
   *
   * @throws IOException when the mark cannot be written safely (the tree is then not detached)
   */
  public void detach() throws IOException {
    if (detached.get()) {
      return;
    }
    ProcessIdentity self = platform.self();
    String by = " by " + self.pid() + " " + self.startTime() + ": " + leaderText;
    DetachMarks.mark(
        cgroup.isPresent() ? cgroup.get().name() : cookie(), "detached at " + Instant.now() + by);
    detached.set(true);
  }

  /**
   * Whether {@link #detach()} let this tree go.
   *
   * @return {@code true} once detached
   */
  public boolean isDetached() {
    return detached.get();
  }

  /**
   * Terminates with the default grace; returns once the tree is gone (or reported surviving). A
   * {@linkplain #detach() detached} tree is left running, and its leader is reaped once it exits.
   */
  @Override
  public void close() {
    if (!detached.get()) {
      terminate();
    } else if (released.compareAndSet(false, true)) {
      leader.onExit().thenRun(this::reapReleasedLeader);
    }
  }

  /**
   * Reaps a released leader that has exited, unless a termination holds the pin: that one reaps the
   * leader as its last step, or {@link #run} calls this again once it let go.
   */
  private void reapReleasedLeader() {
    if (leaderPin.tryLock()) {
      try {
        leader.reap();
      } finally {
        leaderPin.unlock();
      }
    }
  }

  @Override
  public String toString() {
    return "ProcessTree[leader="
        + leader.pid()
        + ", pgid="
        + processGroupId()
        + ", cookie="
        + cookie()
        + ", tier="
        + tier()
        + "]";
  }
}
