package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A supervised child and everything it starts, owned as one unit: its process group and session,
 * its descendants by parentage, and every process that inherited its environment cookie, including
 * those that escaped with setsid or a double fork.
 *
 * <p>The leader is spawned in a session of its own and held unreaped after it exits, so the group
 * id cannot be reused while the tree may still signal it; it is reaped as the last step of {@link
 * #terminate}. {@link #close()} terminates with the default grace, so a try-with-resources block
 * leaves nothing behind.
 *
 * <p>Guarantees depend on the platform ({@link ProcessPlatform#capabilities()}): with group signals
 * (the JNA platform) the group is signalled at once, atomically with respect to forks in flight;
 * without them (the pure-JDK fallback) every process found is signalled on its own by identity, so
 * a process forked between a scan and its signal is only caught by the next scan, and a leader the
 * JDK has reaped no longer pins the group and session ids (membership is then by parentage, cookie
 * and processes seen before).
 */
public final class ProcessTree implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessTree.class);
  private static final Duration FIRST_EXIT_POLL = Duration.ofMillis(20);
  private static final Duration MAX_EXIT_POLL = Duration.ofSeconds(1);

  private final ProcessPlatform platform;
  private final SupervisedProcess leader;
  private final TreeOptions options;
  private final TreeScanner scanner;
  private final boolean groupSignals;
  private final CompletableFuture<ProcessTree> exit = new CompletableFuture<>();
  private final AtomicBoolean watching = new AtomicBoolean();
  private final AtomicReference<CompletableFuture<TerminationReport>> termination =
      new AtomicReference<>();

  private ProcessTree(ProcessPlatform platform, SupervisedProcess leader, TreeOptions options) {
    this.platform = platform;
    this.leader = leader;
    this.options = options;
    boolean ownGroup = leader.processGroupId() > 0;
    this.groupSignals = ownGroup && platform.capabilities().groupSignals();
    Scope scope =
        new Scope(
            leader.identity(),
            true,
            ownGroup ? leader.processGroupId() : platform.selfProcessGroup(),
            ownGroup,
            leader.isSessionLeader() ? leader.pid() : -1,
            leader.treeCookie());
    this.scanner = new TreeScanner(platform, scope);
  }

  /** Spawns {@code builder}'s command as a tree on {@link ProcessPlatform#get()}. */
  public static ProcessTree spawn(ProcessBuilder builder) throws IOException {
    return spawn(ProcessPlatform.get(), builder, TreeOptions.defaults());
  }

  /** Spawns {@code builder}'s command as a tree on {@link ProcessPlatform#get()}. */
  public static ProcessTree spawn(ProcessBuilder builder, TreeOptions options) throws IOException {
    return spawn(ProcessPlatform.get(), builder, options);
  }

  /**
   * Spawns {@code builder}'s command as a tree: a new session, the leader held unreaped after its
   * exit, a fresh cookie.
   *
   * @throws IOException when the program cannot be started
   */
  public static ProcessTree spawn(
      ProcessPlatform platform, ProcessBuilder builder, TreeOptions options) throws IOException {
    Objects.requireNonNull(platform, "platform");
    Objects.requireNonNull(options, "options");
    SpawnOptions spawn = SpawnOptions.defaults().withNewSession(true).withKeepLeaderUnreaped(true);
    return SpawnedTrees.announce(
        new ProcessTree(platform, platform.spawn(builder, spawn), options));
  }

  /** The leader: streams, exit value, {@code onExit} of the leader alone. */
  public SupervisedProcess leader() {
    return leader;
  }

  public ProcessIdentity leaderIdentity() {
    return leader.identity();
  }

  /** The tree's own process group (and session) id, or {@code -1} when it shares the JVM's. */
  public long processGroupId() {
    return leader.processGroupId();
  }

  /** The session id, or {@code -1} when the leader does not lead a session of its own. */
  public long sessionId() {
    return leader.isSessionLeader() ? leader.pid() : -1;
  }

  /** The cookie every descendant inherits as {@link SpawnOptions#COOKIE_VARIABLE}. */
  public String cookie() {
    return leader.treeCookie();
  }

  /** Whether this tree is ended with group signals (else process by process). */
  public boolean usesGroupSignals() {
    return groupSignals;
  }

  /** The live processes of the tree now (one process-table pass plus a cookie search). */
  public TreeView view() {
    return scanner.scan(true);
  }

  /** The live members of the tree's own group now. */
  public List<TreeMember> members() {
    return view().members();
  }

  /** The live processes of the tree that left its group now. */
  public List<TreeMember> escapees() {
    return view().escapees();
  }

  /**
   * Completes when the whole tree is gone: the leader exited and no member or escapee is alive.
   * Nothing polls while the leader runs; afterwards the tree is polled with backoff (20 ms doubling
   * to 1 s) only while descendants outlive the leader.
   */
  public CompletableFuture<ProcessTree> onExit() {
    if (watching.compareAndSet(false, true)) {
      leader.onExit().whenComplete((p, t) -> poll(new Backoff(FIRST_EXIT_POLL, MAX_EXIT_POLL)));
    }
    return exit.copy();
  }

  private void poll(Backoff backoff) {
    if (exit.isDone()) {
      return;
    }
    try {
      // The cheap scan decides "still running"; only an empty one is confirmed with the cookie.
      if (scanner.scan(false).isEmpty() && scanner.scan(true).isEmpty()) {
        exit.complete(this);
        return;
      }
    } catch (RuntimeException e) {
      LOG.warn("cannot scan process tree {}; retrying", leader.pid(), e);
    }
    TreeScheduler.get().schedule(() -> poll(backoff), backoff.nextNanos(), TimeUnit.NANOSECONDS);
  }

  /** {@link #terminate(Duration)} with the grace of this tree's {@link TreeOptions}. */
  public TerminationReport terminate() {
    return terminate(options.grace());
  }

  /**
   * Ends the tree: SIGTERM and SIGCONT, up to {@code grace} for it to exit, SIGKILL to what is
   * left, verification, then the escapee sweep; returns when that is done. Only the first call (of
   * this and {@link #terminateAsync}) runs and its grace counts; every call returns its report. An
   * interrupt cuts the grace short (straight to SIGKILL) and is kept set on return.
   */
  public TerminationReport terminate(Duration grace) {
    CompletableFuture<TerminationReport> mine = new CompletableFuture<>();
    if (termination.compareAndSet(null, mine)) {
      run(mine, grace);
    }
    return termination.get().join();
  }

  /** Like {@link #terminate(Duration)}, on a thread of its own (not a daemon: it must finish). */
  public CompletableFuture<TerminationReport> terminateAsync(Duration grace) {
    CompletableFuture<TerminationReport> mine = new CompletableFuture<>();
    if (termination.compareAndSet(null, mine)) {
      Thread thread = new Thread(() -> run(mine, grace), "lifecycle-terminate-" + leader.pid());
      thread.setDaemon(false);
      thread.start();
    }
    return termination.get().copy();
  }

  private void run(CompletableFuture<TerminationReport> result, Duration grace) {
    try {
      TerminationReport report =
          new Termination(
                  platform,
                  scanner,
                  groupSignals,
                  grace,
                  options,
                  null,
                  Duration.ZERO,
                  leader::reap)
              .run();
      LOG.debug("tree {}: {}", leader.pid(), report);
      result.complete(report);
      if (report.isComplete()) {
        exit.complete(this);
      }
    } catch (Throwable t) {
      result.completeExceptionally(t);
      throw t;
    }
  }

  /** Terminates with the default grace; returns once the tree is gone (or reported surviving). */
  @Override
  public void close() {
    terminate();
  }

  @Override
  public String toString() {
    return "ProcessTree[leader="
        + leader.pid()
        + ", pgid="
        + processGroupId()
        + ", cookie="
        + cookie()
        + "]";
  }
}
