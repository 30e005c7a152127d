package dev.lifecycle.broker;

import dev.lifecycle.internal.Durations;
import dev.lifecycle.internal.Setting;
import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.record.SessionRecord;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.time.Guards;
import dev.lifecycle.time.IdleTracker;
import dev.lifecycle.time.Limit;
import dev.lifecycle.time.TimerHandle;
import dev.lifecycle.time.TimerScheduler;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.SelfTermination;
import dev.lifecycle.tree.TreeOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker side of a shared helper, run inside the broker process. Thread-safe.
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
 * <p>The parts: {@code Listener} (socket and accept thread), {@code Connection} (framing, dispatch,
 * replies), {@code ShutdownPass} (the ordered steps); this class holds the state machine that ties
 * them together. Thread-safe.
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
  private static final Logger LOG = LoggerFactory.getLogger(BrokerRuntime.class);

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

  static final Setting<Duration> BACKEND_GRACE =
      Setting.duration(BACKEND_GRACE_PROPERTY, BACKEND_GRACE_ENV, DEFAULT_BACKEND_GRACE);

  /** Longer request lines are a broken or hostile client: its connection is closed. */
  static final int MAX_LINE_BYTES = Wire.MAX_LINE_BYTES;

  /**
   * The line a broker writes on every connection it accepts while it is not shutting down, before
   * anything else. A connection the kernel queued just before the listener closed is closed without
   * it, so a client that reads no greeting knows it reached a dying broker and starts over ({@link
   * BrokerConnection#open} does this) instead of waiting for a reply that never comes.
   */
  public static final String GREETING = Wire.GREETING;

  /** The socket file inside the generation directory. */
  static final String SOCKET_FILE = Listener.SOCKET_FILE;

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

  private final RecordStore store;
  private final String name;
  private final ProcessPlatform platform;
  private final TimerScheduler scheduler;
  private final Limit startupTimeout;
  private final Limit idleTimeout;
  private final Duration backendGrace;
  private final boolean tcp;
  private final RequestHandler handler;
  private final Startup startup;
  private final Supplier<Tether> tether;
  private final Tether configuredTether; // null: the shared one
  private final boolean shutdownHook;
  private final boolean exitOnStartupOverrun;
  private final ShutdownPass pass;
  private final Host host = new Host();
  private final Backends backends;
  private final PhaseHook phases;

  private final Object lock = new Object();
  private BrokerState state = BrokerState.NEW; // guarded by lock
  private ShutdownReason reason; // guarded by lock
  private Listener listener; // guarded by lock
  private SessionRecord published; // guarded by lock
  private final Set<Connection> connections = new LinkedHashSet<>(); // guarded by lock
  private volatile IdleTracker idle;
  private volatile TimerHandle startupGuard = TimerHandle.NONE;
  private final GenerationFiles files = new GenerationFiles();
  private volatile Thread hook;
  private final CompletableFuture<ShutdownReport> stopped = new CompletableFuture<>();

  private BrokerRuntime(Builder b) {
    store = Objects.requireNonNull(b.store, "store not set");
    name = Objects.requireNonNull(b.name, "name not set");
    store.recordFile(name); // validates the name now rather than at start
    handler = Objects.requireNonNull(b.handler, "handler not set");
    platform = b.platform != null ? b.platform : ProcessPlatform.get();
    scheduler = b.scheduler != null ? b.scheduler : TimerScheduler.system();
    startupTimeout = BrokerLimits.STARTUP.or(b.startupTimeout);
    idleTimeout = BrokerLimits.IDLE.or(b.idleTimeout);
    backendGrace = BACKEND_GRACE.resolve(b.backendGrace);
    tcp = b.tcp;
    startup = b.startup;
    backends = new Backends(this, b.backendExit);
    phases = b.phases;
    tether = b.tether != null ? () -> b.tether : Tether::shared;
    configuredTether = b.tether;
    shutdownHook = b.shutdownHook;
    exitOnStartupOverrun = b.exitOnStartupOverrun;
    pass = new ShutdownPass(store, name, backendGrace, b.observer);
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
    synchronized (lock) {
      if (state != BrokerState.NEW) {
        throw new IllegalStateException("broker " + name + " already started: " + state);
      }
      state = BrokerState.STARTING;
      // Until it listens nothing else can end a broker: no idle timer, no client, a gone
      // spawner. Armed with the state change, so whoever sees STARTING also sees the bound.
      startupGuard =
          Guards.arm(startupTimeout, () -> trigger(ShutdownReason.STARTUP_OVERRUN), scheduler);
    }
    if (shutdownHook) {
      hook =
          Threads.shutdownHook(
              "lifecycle-broker-exit", () -> shutdown(ShutdownReason.JVM_EXIT).join());
    }
    ShutdownReason failure = ShutdownReason.STARTUP_FAILED;
    try {
      if (startup != null) {
        startup.start(this);
      }
      phases.reached(PhaseHook.Phase.STARTING);
      checkStillStarting();
      files.create(store, name);
      Listener bound = tcp ? Listener.tcpLoopback(name) : Listener.unix(name, files.forSocket());
      idle =
          IdleTracker.builder()
              .timeout(idleTimeout)
              .scheduler(scheduler)
              .onIdle(() -> trigger(ShutdownReason.IDLE))
              .build();
      synchronized (lock) {
        if (state != BrokerState.STARTING) {
          bound.close();
          checkStillStarting();
        }
        listener = bound;
      }
      bound.start(this::accepted);
      SessionRecord record =
          SessionRecord.newGeneration(platform, bound.endpoint(), files.artifacts());
      phases.reached(PhaseHook.Phase.PUBLISHING);
      synchronized (lock) { // publish and shutdown exclude each other: no record outlives a pass
        checkStillStarting();
        Optional<SessionRecord> other = store.publishIfVacant(name, record);
        if (other.isPresent()) {
          failure = ShutdownReason.NAME_TAKEN;
          throw new BrokerException(
              "broker "
                  + name
                  + " is already served by pid "
                  + other.get().owner().pid()
                  + " at "
                  + other.get().endpoint()
                  + "; not publishing over it",
              other.get().owner().pid());
        }
        published = record;
        state = BrokerState.SERVING;
      }
      phases.reached(PhaseHook.Phase.SERVING);
      startupGuard.cancel();
      LOG.info("broker {} serving at {} (pid {})", name, bound.endpoint(), record.owner().pid());
      return record;
    } catch (Exception e) {
      ShutdownReport report =
          shutdown(backends.lost() ? ShutdownReason.BACKEND_EXITED : failure).join();
      // A pass that won the race may have run before these files existed.
      ShutdownPass.removeOwnFiles(files.created(), new ArrayList<>(), new ArrayList<>());
      LOG.warn("broker {} failed to start: {}; {}", name, e.toString(), report);
      if (e instanceof IOException io) {
        throw io;
      }
      throw new IOException("broker " + name + " failed to start: " + e, e);
    }
  }

  private void checkStillStarting() throws IOException {
    synchronized (lock) {
      if (state != BrokerState.STARTING) {
        throw new IOException("broker " + name + " was shut down while starting: " + reason);
      }
    }
    if (backends.lost()) {
      throw new IOException("broker " + name + ": a backend exited while starting");
    }
  }

  /** Whether requests are dispatched and replies sent: before the pass, with every backend. */
  private boolean answering() {
    synchronized (lock) {
      return state.compareTo(BrokerState.SERVING) <= 0 && !backends.lost();
    }
  }

  /** Idle leases open now (diagnostics and tests). */
  int activeLeases() {
    IdleTracker tracker = idle;
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
    Objects.requireNonNull(tree, "tree");
    if (backends.add(tree)) {
      return tree;
    }
    LOG.warn("broker {} is shutting down: terminating late backend {}", name, tree);
    tree.terminate(backendGrace);
    return tree;
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
    TreeOptions options = TreeOptions.defaults().withGrace(backendGrace);
    Tether bindTo;
    try {
      bindTo = tether.get();
    } catch (UncheckedIOException e) {
      throw new IOException("no tether for the backends of broker " + name, e.getCause());
    }
    return adopt(bindTo.spawn(platform, builder, options).tree());
  }

  /**
   * An idle lease for activity that is not a request (a stream, a subscription): the broker does
   * not idle out while it is open. Close it when the activity ends.
   *
   * @return an open lease
   * @throws IllegalStateException if the broker is not serving yet
   */
  public IdleTracker.Lease lease() {
    IdleTracker tracker = idle;
    if (tracker == null) {
      throw new IllegalStateException("broker " + name + " is not serving yet");
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

  /** From a timer: closing the listener is quick, but nothing may block the shared timer thread. */
  private void trigger(ShutdownReason why) {
    // Not a daemon: the pass it starts must not be cut short by the JVM running out of threads.
    Threads.startKeepingJvm("lifecycle-broker-trigger", () -> shutdown(why));
  }

  CompletableFuture<ShutdownReport> shutdown(ShutdownReason why) {
    long started = System.nanoTime();
    Listener closing;
    synchronized (lock) {
      switch (state) {
        case SHUTTING_DOWN, STOPPED -> {
          return stopped.copy();
        }
        case NEW -> {
          state = BrokerState.STOPPED;
          reason = why;
          backends.close();
          stopped.complete(
              new ShutdownReport(why, false, List.of(), List.of(), List.of(), Duration.ZERO));
          return stopped.copy();
        }
        default -> {
          IdleTracker tracker = idle;
          if (why == ShutdownReason.IDLE && tracker != null && tracker.activeLeases() > 0) {
            // A client was accepted (and greeted) between the idle decision and here: it keeps
            // the broker, and the tracker re-arms when its lease closes.
            return stopped.copy();
          }
          state = BrokerState.SHUTTING_DOWN;
          reason = why;
          closing = listener;
          backends.close(); // under the lock: a tree adopted from here on is refused
        }
      }
    }
    // Before the first wait of the pass: a client can no longer attach to this dying broker.
    List<String> problems = new ArrayList<>();
    if (closing != null) {
      try {
        closing.close();
      } catch (IOException e) {
        problems.add("closing the listener: " + e);
      }
    }
    pass.step(ShutdownPass.Step.LISTENER_CLOSED);
    startupGuard.cancel();
    IdleTracker tracker = idle;
    if (tracker != null) {
      tracker.close();
    }
    LOG.info("broker {} shutting down: {}", name, why);
    Threads.startKeepingJvm("lifecycle-broker-shutdown", () -> runPass(why, started, problems));
    return stopped.copy();
  }

  private void runPass(ShutdownReason why, long started, List<String> problems) {
    phases.reached(PhaseHook.Phase.STOPPING);
    List<Connection> open;
    SessionRecord mine;
    synchronized (lock) {
      open = List.copyOf(connections);
      mine = published;
    }
    ShutdownReport report =
        pass.run(why, started, problems, open, mine, files.created(), backends::trees);
    synchronized (lock) {
      state = BrokerState.STOPPED;
    }
    OrphanedCgroup.leave(platform, configuredTether);
    LOG.info("broker {} stopped: {}", name, report);
    stopped.complete(report);
    removeHook();
    if (why == ShutdownReason.STARTUP_OVERRUN && exitOnStartupOverrun) {
      System.err.println(
          "broker "
              + name
              + " was not serving within "
              + startupTimeout
              + "; terminating its tree");
      // Also ends what the startup was still spawning and had not adopted yet.
      SelfTermination.builder()
          .platform(platform)
          .grace(backendGrace)
          .exitCode(STARTUP_OVERRUN_EXIT_CODE)
          .build()
          .terminateAndExit();
    }
  }

  private void removeHook() {
    Thread h = hook;
    if (h != null && Thread.currentThread() != h) {
      try {
        Runtime.getRuntime().removeShutdownHook(h);
      } catch (IllegalStateException exiting) {
        // The JVM is already exiting: the hook runs and finds the pass done.
      }
    }
  }

  /** On the accept thread: greet and serve, or refuse once shutting down. */
  private void accepted(SocketChannel channel) {
    Connection connection = new Connection(channel, idle.acquire(), host);
    synchronized (lock) {
      // Greeting under the lock: a client that reads it attached before any shutdown began.
      if (state.compareTo(BrokerState.SERVING) > 0 || backends.lost() || !connection.greet()) {
        connection.refuse();
        return;
      }
      connections.add(connection);
    }
    connection.start();
  }

  /**
   * The broker's state now.
   *
   * @return the current state, read under the broker's lock
   */
  public BrokerState state() {
    synchronized (lock) {
      return state;
    }
  }

  /**
   * The record this broker published, once serving.
   *
   * @return the published record, or empty before serving began
   */
  public Optional<SessionRecord> record() {
    synchronized (lock) {
      return Optional.ofNullable(published);
    }
  }

  /**
   * Completes with the report when the shutdown pass has finished.
   *
   * @return a new future per call; completing or cancelling it does not affect the broker
   */
  public CompletableFuture<ShutdownReport> onStopped() {
    return stopped.copy();
  }

  /**
   * Blocks until the shutdown pass has finished (run by whatever trigger) and returns its report.
   * When the JVM exits through the shutdown hook (SIGTERM), code after this call may not get to
   * run: the runtime logs the report itself.
   *
   * @return the report of the shutdown pass
   */
  public ShutdownReport awaitStopped() {
    return stopped.join();
  }

  /** Runs the shutdown pass (or joins the one under way) and waits for it. */
  @Override
  public void close() {
    shutdown().join();
  }

  @Override
  public String toString() {
    return "BrokerRuntime[" + name + ", " + state() + "]";
  }

  String name() {
    return name;
  }

  /** What connections see of the runtime. */
  private final class Host implements Connection.Host {
    @Override
    public String name() {
      return name;
    }

    @Override
    public RequestHandler handler() {
      return handler;
    }

    @Override
    public BrokerRuntime runtime() {
      return BrokerRuntime.this;
    }

    @Override
    public boolean answering() {
      return BrokerRuntime.this.answering();
    }

    @Override
    public AutoCloseable acquireLease() {
      return idle.acquire();
    }

    @Override
    public void closed(Connection connection) {
      synchronized (lock) {
        connections.remove(connection);
      }
    }
  }

  /** Builds a {@link BrokerRuntime}; store, name and handler are required. */
  public static final class Builder {
    private RecordStore store;
    private String name;
    private RequestHandler handler;
    private ProcessPlatform platform;
    private TimerScheduler scheduler;
    private Limit startupTimeout;
    private Limit idleTimeout;
    private Optional<Duration> backendGrace = Optional.empty();
    private boolean tcp;
    private Startup startup;
    private BackendExit backendExit = BackendExit.shutDown();
    private PhaseHook phases = PhaseHook.NONE;
    private Tether tether;
    private boolean shutdownHook = true;
    private boolean exitOnStartupOverrun = true;
    private Consumer<ShutdownPass.Step> observer = step -> {};

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
      String directory = System.getenv(BrokerClient.DIRECTORY_VARIABLE);
      String named = System.getenv(BrokerClient.NAME_VARIABLE);
      boolean noDirectory = directory == null || directory.isBlank();
      boolean noName = named == null || named.isBlank();
      if (noDirectory || noName) {
        String missing =
            noDirectory && noName
                ? BrokerClient.DIRECTORY_VARIABLE + " and " + BrokerClient.NAME_VARIABLE
                : noDirectory ? BrokerClient.DIRECTORY_VARIABLE : BrokerClient.NAME_VARIABLE;
        throw new IllegalStateException(
            missing + " not set: a broker reads them from the BrokerClient that starts it");
      }
      store = RecordStore.open(Path.of(directory));
      name = named;
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
      return new BrokerRuntime(this);
    }
  }
}
