package dev.lifecycle.broker;

import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.internal.Durations;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.record.SessionRecord;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.time.IdleTracker;
import dev.lifecycle.time.Limit;
import dev.lifecycle.time.TimerScheduler;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.SelfTermination;
import dev.lifecycle.tree.TreeOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The broker side of a shared helper, run inside the broker process. Thread-safe. A broker's {@code
 * main}, started by a {@link BrokerClient}:
 *
 * <pre>{@code
 * public static void main(String[] args) throws IOException {
 *   BrokerRuntime broker = BrokerRuntime.builder()
 *       .fromClientEnvironment() // the store and the name the client passed
 *       .handler(request -> CompletableFuture.completedFuture("echo " + request.line()))
 *       .build();
 *   broker.start(); // serving once this returns: the record is published
 *   // Returns after the shutdown pass (idle, shutdown(), SIGTERM) ended the backends.
 *   System.exit(broker.awaitStopped().isClean() ? 0 : 1);
 * }
 * }</pre>
 *
 * <p>{@link #start()}: arms the startup bound, runs the {@link Startup} (which spawns or adopts the
 * backend trees), binds a listener (a Unix domain socket in a fresh per-generation directory, or
 * TCP on loopback), publishes the {@link SessionRecord} only once listening and only if no other
 * live broker serves the name ({@link RecordStore#publishIfVacant}; otherwise it shuts down with
 * {@link ShutdownReason#NAME_TAKEN}), and serves line-delimited requests with a {@link
 * RequestHandler}. Each connection and each request in flight holds an idle lease; one idle timeout
 * after the last lease closes (or after start, if no client ever comes) the broker shuts down. A
 * backend whose leader exits before the shutdown pass (while starting, publishing or serving) is
 * handled by the {@link BackendExit} policy; with the default, {@link BackendExit#shutDown()}, the
 * broker answers nothing from the moment it sees the exit and runs the pass. A broker that is
 * shutting down dispatches no request and sends no reply.
 *
 * <p>Shutdown is one pass however many triggers race (idle, {@link #shutdown()}, SIGTERM/SIGINT
 * through a JVM shutdown hook, the startup bound); later triggers get the same pass. Its order:
 *
 * <ol>
 *   <li>close the listener, on the triggering thread before anything can wait, so no client
 *       attaches to a dying broker (clients fall back to starting a new one);
 *   <li>close every connection (a half-open client cannot stall the pass);
 *   <li>compare-and-clear its own record by its token (a successor's record survives);
 *   <li>remove its own artifacts (the paths it created, never the paths a record names);
 *   <li>terminate every backend tree, blocking: SIGTERM, grace, SIGKILL, verify.
 * </ol>
 *
 * The shutdown hook waits for the pass, so no exit path (signal, {@code System.exit}, the startup
 * bound) ends the JVM before the backends' escalation completed. Past the startup bound the pass is
 * followed by {@link SelfTermination} of the broker's whole tree and exit code {@link
 * #STARTUP_OVERRUN_EXIT_CODE}.
 */
public final class BrokerRuntime implements AutoCloseable {
  /** Exit status of a broker that took its tree down because it overran its startup bound. */
  public static final int STARTUP_OVERRUN_EXIT_CODE = 3;

  /** System property that overrides the backends' grace. */
  public static final String BACKEND_GRACE_PROPERTY = "lifecycle.broker.backendGrace";

  /** Environment variable that overrides the backends' grace when the property is unset. */
  public static final String BACKEND_GRACE_ENV = "LIFECYCLE_BROKER_BACKEND_GRACE";

  /**
   * How long a backend tree may take to exit after SIGTERM before SIGKILL. 5 s: enough for a JVM or
   * Node backend to run its shutdown hooks.
   */
  public static final Duration DEFAULT_BACKEND_GRACE = Duration.ofSeconds(5);

  /**
   * Prefix of the system properties that set the backends' ceilings: {@code .memory}, {@code
   * .processes}, {@code .cpu}, {@code .cpu.window}, {@code .spin}, {@code .spin.window} ({@link
   * Ceilings#fromConfig}).
   */
  public static final String BACKEND_CEILINGS_PROPERTY_PREFIX = "lifecycle.broker.backend";

  /** Prefix of the environment variables that set the backends' ceilings ({@code _MEMORY}...). */
  public static final String BACKEND_CEILINGS_ENV_PREFIX = "LIFECYCLE_BROKER_BACKEND";

  /**
   * The line a broker writes on every connection it accepts while it is not shutting down, before
   * anything else. A connection the kernel queued just before the listener closed is closed without
   * it, so a client that reads no greeting knows it reached a dying broker and starts over ({@link
   * BrokerConnection#open} does this) instead of waiting for a reply that never comes.
   */
  public static final String GREETING = Wire.GREETING;

  /** Starts or adopts the backend trees while the broker starts, under the startup bound. */
  @FunctionalInterface
  public interface Startup {
    /**
     * Starts or adopts the broker's backends, typically with {@link BrokerRuntime#spawnBackend}.
     *
     * @param runtime the starting broker
     * @throws Exception to fail the start; the broker then takes down whatever was started
     */
    void start(BrokerRuntime runtime) throws Exception;
  }

  private final BrokerSettings settings;
  private final StateMachine machine;

  private BrokerRuntime(BrokerSettings settings) {
    this.settings = settings;
    machine = new StateMachine(this, settings);
  }

  /**
   * A builder for a broker; a store, a name and a handler must be set.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts the broker and returns its published record once it is serving.
   *
   * @return the record clients find the broker by, published in the store
   * @throws IOException when starting failed, another broker already serves the name, or a shutdown
   *     trigger won the race; whatever was started (backends, listener, record, files) has been
   *     taken down before this returns
   * @throws IllegalStateException when called twice
   */
  public SessionRecord start() throws IOException {
    return machine.start();
  }

  /** Idle leases open now (diagnostics and tests). */
  int activeLeases() {
    IdleTracker tracker = machine.idle();
    return tracker == null ? 0 : tracker.activeLeases();
  }

  /**
   * Makes {@code tree} a backend of this broker: the shutdown pass terminates it, and until the
   * pass begins (starting, publishing or serving) the {@link BackendExit} policy hears of its
   * leader's exit. A tree adopted once the pass has begun is terminated at once (blocking), so none
   * outlives the broker.
   *
   * @param tree a running tree
   * @return {@code tree}
   */
  public ProcessTree adopt(ProcessTree tree) {
    return machine.adopt(Objects.requireNonNull(tree, "tree"));
  }

  /**
   * Spawns {@code builder}'s command as a backend tree bound to the tether before it starts ({@link
   * Tether#spawn}), and {@link #adopt adopts} it: if this broker dies at any moment, even by
   * SIGKILL between the spawn and anything after it, the tether ends the tree.
   *
   * @param builder the backend's command, directory and environment
   * @return the started, adopted tree
   * @throws IOException when the program cannot be started or the tether is unavailable (nothing is
   *     left running then)
   */
  public ProcessTree spawnBackend(ProcessBuilder builder) throws IOException {
    TreeOptions options =
        TreeOptions.defaults()
            .withGrace(settings.backendGrace)
            .withCeilings(settings.backendCeilings);
    Tether bindTo = settings.backendTether();
    return adopt(bindTo.spawn(settings.platform, builder, options).tree());
  }

  /**
   * An idle lease for activity that is not a request (a stream, a subscription): the broker does
   * not idle out while it is open. Close it when the activity ends.
   *
   * @return an open lease
   * @throws IllegalStateException if the broker is not serving yet
   */
  public IdleTracker.Lease lease() {
    IdleTracker tracker = machine.idle();
    if (tracker == null) {
      throw new IllegalStateException("broker " + settings.name + " is not serving yet");
    }
    return tracker.acquire();
  }

  /**
   * Starts the shutdown pass for {@link ShutdownReason#REQUEST}, or joins the one under way.
   *
   * @return a future completed with the pass's report; every trigger gets the same report
   */
  public CompletableFuture<ShutdownReport> shutdown() {
    return shutdown(ShutdownReason.REQUEST);
  }

  CompletableFuture<ShutdownReport> shutdown(ShutdownReason why) {
    return machine.shutdown(why);
  }

  /**
   * The broker's state now.
   *
   * @return the current state, read under the broker's lock
   */
  public BrokerState state() {
    return machine.state();
  }

  /**
   * The record this broker published, once serving.
   *
   * @return the published record, or empty before serving began
   */
  public Optional<SessionRecord> record() {
    return machine.record();
  }

  /**
   * Completes with the report when the shutdown pass has finished.
   *
   * @return a new future per call; completing or cancelling it does not affect the broker
   */
  public CompletableFuture<ShutdownReport> onStopped() {
    return machine.stopped();
  }

  /**
   * Blocks until the shutdown pass has finished (run by whatever trigger) and returns its report.
   * When the JVM exits through the shutdown hook (SIGTERM), code after this call may not get to
   * run: the runtime logs the report itself.
   *
   * @return the report of the shutdown pass
   */
  public ShutdownReport awaitStopped() {
    return machine.awaitStopped();
  }

  /** Runs the shutdown pass (or joins the one under way) and waits for it. */
  @Override
  public void close() {
    shutdown().join();
  }

  @Override
  public String toString() {
    return "BrokerRuntime[" + settings.name + ", " + state() + "]";
  }

  String name() {
    return settings.name;
  }

  /** Builds a {@link BrokerRuntime}; store, name and handler are required. */
  public static final class Builder {
    // Read by BrokerSettings, which checks them and fills in the defaults.
    RecordStore store;
    String name;
    RequestHandler handler;
    ProcessPlatform platform;
    TimerScheduler scheduler;
    Limit startupTimeout;
    Limit idleTimeout;
    Optional<Duration> backendGrace = Optional.empty();
    Optional<Ceilings> backendCeilings = Optional.empty();
    boolean tcp;
    Startup startup;
    BackendExit backendExit = BackendExit.shutDown();
    PhaseHook phases = PhaseHook.NONE;
    Tether tether;
    boolean shutdownHook = true;
    boolean exitOnStartupOverrun = true;
    Consumer<ShutdownPass.Step> observer = step -> {};

    private Builder() {}

    /**
     * Where the record is published.
     *
     * @param value the store, shared with the clients
     * @return this builder
     */
    public Builder store(RecordStore value) {
      store = Objects.requireNonNull(value, "store");
      return this;
    }

    /**
     * The record name clients look up.
     *
     * @param value the name
     * @return this builder
     */
    public Builder name(String value) {
      name = Objects.requireNonNull(value, "name");
      return this;
    }

    /**
     * The store and name a {@link BrokerClient} passed to the broker it started ({@link
     * BrokerClient#DIRECTORY_VARIABLE} and {@link BrokerClient#NAME_VARIABLE} in this process's
     * environment), in one call: what a broker's {@code main} does first.
     *
     * @return this builder
     * @throws IllegalStateException if either variable is unset or blank (this process was not
     *     started by a {@code BrokerClient}); the message names the missing ones
     * @throws IOException if the store cannot be opened ({@link RecordStore#open}: for example an
     *     {@link dev.lifecycle.record.UnsafeStoreException} when the directory is not owner-only)
     */
    public Builder fromClientEnvironment() throws IOException {
      BrokerSettings.ClientEnvironment environment = BrokerSettings.ClientEnvironment.read();
      store = RecordStore.open(environment.directory());
      name = environment.name();
      return this;
    }

    /**
     * Serves request lines.
     *
     * @param value answers each request line
     * @return this builder
     */
    public Builder handler(RequestHandler value) {
      handler = Objects.requireNonNull(value, "handler");
      return this;
    }

    /**
     * Starts the backends under the startup bound, before the listener is bound.
     *
     * @param value starts or adopts the backends
     * @return this builder
     */
    public Builder startup(Startup value) {
      startup = Objects.requireNonNull(value, "startup");
      return this;
    }

    /**
     * What to do when a backend's leader exits before the shutdown pass (while starting, publishing
     * or serving); default {@link BackendExit#shutDown()}.
     *
     * @param value the policy
     * @return this builder
     */
    public Builder onBackendExit(BackendExit value) {
      backendExit = Objects.requireNonNull(value, "onBackendExit");
      return this;
    }

    /**
     * The tether {@link #spawnBackend} binds backends to; default {@link Tether#shared()}.
     *
     * @param value the tether; backends die when its owner dies
     * @return this builder
     */
    public Builder tether(Tether value) {
      tether = Objects.requireNonNull(value, "tether");
      return this;
    }

    /**
     * Default {@link ProcessPlatform#get()}.
     *
     * @param value the platform that spawns and signals processes
     * @return this builder
     */
    public Builder platform(ProcessPlatform value) {
      platform = Objects.requireNonNull(value, "platform");
      return this;
    }

    /**
     * Default {@link TimerScheduler#system()}; tests pass virtual time.
     *
     * @param value runs the startup and idle timers
     * @return this builder
     */
    public Builder scheduler(TimerScheduler value) {
      scheduler = Objects.requireNonNull(value, "scheduler");
      return this;
    }

    /**
     * Default {@link BrokerLimits#STARTUP}.
     *
     * @param value the longest start may take; disabled waits forever
     * @return this builder
     */
    public Builder startupTimeout(Limit value) {
      startupTimeout = Objects.requireNonNull(value, "startupTimeout");
      return this;
    }

    /**
     * Default {@link BrokerLimits#IDLE}.
     *
     * @param value how long without a request or lease before the broker shuts down; disabled never
     *     idles out
     * @return this builder
     */
    public Builder idleTimeout(Limit value) {
      idleTimeout = Objects.requireNonNull(value, "idleTimeout");
      return this;
    }

    /**
     * Without it, the configured grace: {@value #BACKEND_GRACE_PROPERTY}, else {@value
     * #BACKEND_GRACE_ENV}, else {@link #DEFAULT_BACKEND_GRACE}. {@link Duration#ZERO} means SIGKILL
     * right after SIGTERM.
     *
     * @param value the grace between SIGTERM and SIGKILL for the backend trees, not negative
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public Builder backendGrace(Duration value) {
      backendGrace = Optional.of(Durations.nonNegative(value, "backendGrace"));
      return this;
    }

    /**
     * The ceilings of every backend tree ({@link #spawnBackend}): memory, processes, CPU and the
     * spin rule. Without it, each is configured ({@value #BACKEND_CEILINGS_PROPERTY_PREFIX}{@code
     * .memory} and so on, see {@link Ceilings#fromConfig}) or off.
     *
     * @param value the backends' ceilings; {@link Ceilings#none()} for none
     * @return this builder
     */
    public Builder backendCeilings(Ceilings value) {
      backendCeilings = Optional.of(Objects.requireNonNull(value, "backendCeilings"));
      return this;
    }

    /**
     * Listen on TCP loopback (an ephemeral port) instead of a Unix domain socket.
     *
     * @return this builder
     */
    public Builder tcpLoopback() {
      tcp = true;
      return this;
    }

    /**
     * Whether a JVM shutdown hook runs (and waits for) the shutdown pass on SIGTERM, SIGINT and
     * {@code System.exit}; default true. Turn it off only when the embedding code does that itself.
     *
     * @param value {@code true} to install the hook
     * @return this builder
     */
    public Builder shutdownHook(boolean value) {
      shutdownHook = value;
      return this;
    }

    /** Tests in one JVM: report a startup overrun without ending the JVM. */
    Builder exitOnStartupOverrun(boolean value) {
      exitOnStartupOverrun = value;
      return this;
    }

    /** Tests: holds the broker at a boundary of its life. */
    Builder phaseHook(PhaseHook value) {
      phases = Objects.requireNonNull(value, "phaseHook");
      return this;
    }

    /** Tests: sees each step of the shutdown pass as it completes. */
    Builder observer(Consumer<ShutdownPass.Step> value) {
      observer = Objects.requireNonNull(value, "observer");
      return this;
    }

    /**
     * Builds the broker; nothing runs until {@link BrokerRuntime#start()}.
     *
     * @return a new broker in state {@link BrokerState#NEW}
     */
    public BrokerRuntime build() {
      return new BrokerRuntime(new BrokerSettings(this));
    }
  }
}
