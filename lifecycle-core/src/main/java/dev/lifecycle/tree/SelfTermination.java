package dev.lifecycle.tree;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends this JVM's own tree and then the JVM: for a worker past its TTL or a broker past its startup
 * bound. Every other process of the tree gets SIGTERM (and SIGCONT), the {@code beforeKill} hook
 * runs (bounded: its failure or hang never stops the kill), whatever is left after the grace gets
 * SIGKILL and is verified gone, then the JVM exits with the given code. Immutable once built; safe
 * to use from any thread.
 *
 * <p>The tree is: this JVM's descendants by parentage; its process group when it leads that group;
 * its session when it leads that session; and processes carrying its {@link
 * SpawnOptions#COOKIE_VARIABLE} when it leads its group or session (as a tree leader spawned by
 * {@link ProcessTree} does). When it leads neither, group and session peers are siblings it did not
 * start (a shell pipeline, a terminal session) and are left alone. This JVM and its ancestors are
 * never signalled, and its own group is never signalled as a group: every member is signalled by
 * identity.
 *
 * <p>The JVM ends with {@link System#exit} on a helper thread, so shutdown hooks run; if they have
 * not finished within the exit timeout (a hook that hangs, or a call from inside a shutdown hook,
 * where {@code System.exit} blocks forever) {@link Runtime#halt} ends it regardless.
 */
public final class SelfTermination {
  private static final Logger LOG = LoggerFactory.getLogger(SelfTermination.class);

  private final ProcessPlatform platform;
  private final TreeOptions options;
  private final int exitCode;
  private final Runnable beforeKill;
  private final Duration beforeKillTimeout;
  private final Duration exitTimeout;
  private final IntConsumer halt;

  private SelfTermination(Builder b) {
    this.platform = b.platform;
    this.options = b.options;
    this.exitCode = b.exitCode;
    this.beforeKill = b.beforeKill;
    this.beforeKillTimeout = b.beforeKillTimeout;
    this.exitTimeout = b.exitTimeout;
    this.halt = b.halt;
  }

  /**
   * A builder with the default platform, a 5 s grace and exit status 1.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Ends every other process of this JVM's tree (TERM, beforeKill, grace, KILL, verify, sweep) and
   * returns the report; the JVM keeps running. Most callers want {@link #terminateAndExit()}.
   *
   * @return what was signalled and whether every other member is proven gone
   * @throws IllegalStateException if this JVM is not in the process table
   */
  public TerminationReport terminateTree() {
    ProcessIdentity self = platform.self();
    ProcessInfo row =
        platform
            .snapshot()
            .get(self.pid())
            .orElseThrow(() -> new IllegalStateException("this JVM is not in the process table"));
    boolean leadsGroup = row.pgid() == self.pid();
    boolean leadsSession = row.sid() == self.pid();
    String cookie = System.getenv(SpawnOptions.COOKIE_VARIABLE);
    Scope scope =
        new Scope(
            self,
            false,
            row.pgid(),
            leadsGroup,
            leadsSession ? row.sid() : -1,
            (leadsGroup || leadsSession) && cookie != null ? cookie : "");
    // Never killpg: the group contains this JVM (SIGKILL would end it before the sweep).
    Signaller signaller = new Signaller(platform, self, row.pgid(), false);
    TreeScanner scanner = new TreeScanner(platform, scope);
    return new Termination(
            new SessionMembership(platform, scanner, signaller, options.grace(), options),
            signaller,
            options.grace(),
            options,
            beforeKill,
            beforeKillTimeout,
            null,
            "this JVM's own tree: session, group, parentage and cookie",
            Long.toString(self.pid()).concat(" (this JVM)"))
        .run();
  }

  /**
   * {@link #terminateTree()}, then ends the JVM with the exit code. Never returns normally; any
   * failure on the way still ends in the exit.
   */
  public void terminateAndExit() {
    try {
      TerminationReport report = terminateTree();
      LOG.info("self-termination: {}", report);
    } catch (Throwable t) {
      LOG.error("self-termination failed; exiting anyway", t);
    } finally {
      exit();
    }
  }

  private void exit() {
    Thread exiter = Threads.startDaemon("lifecycle-self-exit", () -> System.exit(exitCode));
    try {
      exiter.join(exitTimeout.toMillis() + 1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // halt below regardless
    }
    halt.accept(exitCode); // shutdown hooks hung, or System.exit was called from inside one
  }

  /** Builds a {@link SelfTermination}; every setting has a default. */
  public static final class Builder {
    private ProcessPlatform platform;
    private TreeOptions options = TreeOptions.defaults();
    private int exitCode = 1;
    private Runnable beforeKill;
    private Duration beforeKillTimeout = Duration.ofSeconds(2);
    private Duration exitTimeout = Duration.ofSeconds(5);
    private IntConsumer halt = code -> Runtime.getRuntime().halt(code);

    private Builder() {}

    /**
     * The platform; default {@link ProcessPlatform#get()}.
     *
     * @param value the platform that reads and signals the tree
     * @return this builder
     */
    public Builder platform(ProcessPlatform value) {
      platform = Objects.requireNonNull(value, "platform");
      return this;
    }

    /**
     * How long members may take to exit after SIGTERM; default 5 s.
     *
     * @param value the grace, not negative
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public Builder grace(Duration value) {
      options = options.withGrace(value);
      return this;
    }

    /**
     * Escapee grace and verification bound; the grace set by {@link #grace} is kept.
     *
     * @param value the options whose escapee grace and verification bound are used
     * @return this builder
     */
    public Builder options(TreeOptions value) {
      options = Objects.requireNonNull(value, "options").withGrace(options.grace());
      return this;
    }

    /**
     * The JVM's exit status; default 1 (ending one's own tree is not a success).
     *
     * @param value the exit status
     * @return this builder
     */
    public Builder exitCode(int value) {
      exitCode = value;
      return this;
    }

    /**
     * Runs after the grace, before SIGKILL (latch a status, write a last record). Runs on its own
     * thread for at most {@code timeout}; an exception or a hang is reported and the kill goes on.
     *
     * @param hook what to run before SIGKILL
     * @param timeout the longest the hook may run, not negative
     * @return this builder
     * @throws IllegalArgumentException if {@code timeout} is negative
     */
    public Builder beforeKill(Runnable hook, Duration timeout) {
      beforeKill = Objects.requireNonNull(hook, "hook");
      beforeKillTimeout = TreeOptions.check(timeout, "timeout");
      return this;
    }

    /**
     * How long shutdown hooks may run before {@link Runtime#halt}; default 5 s.
     *
     * @param value the bound, not negative
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public Builder exitTimeout(Duration value) {
      exitTimeout = TreeOptions.check(value, "exitTimeout");
      return this;
    }

    /** Replaces {@link Runtime#halt} (tests). */
    Builder halt(IntConsumer value) {
      halt = Objects.requireNonNull(value, "halt");
      return this;
    }

    /**
     * Builds the self-termination; nothing is signalled until it is run.
     *
     * @return a new self-termination
     */
    public SelfTermination build() {
      if (platform == null) {
        platform = ProcessPlatform.get();
      }
      return new SelfTermination(this);
    }
  }
}
