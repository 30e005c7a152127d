package dev.lifecycle.broker;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.ArtifactKind;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.record.SessionRecord;
import dev.lifecycle.time.Guards;
import dev.lifecycle.time.IdleTracker;
import dev.lifecycle.time.Limit;
import dev.lifecycle.time.TimerHandle;
import dev.lifecycle.time.TimerScheduler;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.SelfTermination;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker side of a shared helper, run inside the broker process.
 *
 * <p>{@link #start()}: arms the startup bound, runs the {@link Startup} (which spawns or adopts the
 * backend trees), binds a listener (a Unix domain socket in a fresh per-generation directory, or
 * TCP on loopback), publishes the {@link SessionRecord} only once listening, and serves
 * line-delimited requests with a {@link RequestHandler}. Each connection and each request in flight
 * holds an idle lease; one idle timeout after the last lease closes (or after start, if no client
 * ever comes) the broker shuts down.
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

  /** Longer request lines are a broken or hostile client: its connection is closed. */
  static final int MAX_LINE_BYTES = 1 << 20;

  /**
   * The line a broker writes on every connection it accepts while it is not shutting down, before
   * anything else. A connection the kernel queued just before the listener closed is closed without
   * it, so a client that reads no greeting knows it reached a dying broker and starts over ({@link
   * BrokerClient#connect()} does this) instead of waiting for a reply that never comes.
   */
  public static final String GREETING = "lifecycle-broker";

  /** A signalled accept() returns in microseconds; this only bounds a pathological case. */
  private static final Duration ACCEPTOR_EXIT = Duration.ofSeconds(1);

  /** The socket file inside the generation directory. */
  static final String SOCKET_FILE = "broker.sock";

  /** Steps of the shutdown pass, in order (observable by tests). */
  enum Step {
    LISTENER_CLOSED,
    CONNECTIONS_CLOSED,
    RECORD_CLEARED,
    ARTIFACTS_REMOVED,
    BACKENDS_TERMINATED
  }

  /** Starts or adopts the backend trees while the broker starts, under the startup bound. */
  @FunctionalInterface
  public interface Startup {
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
  private final boolean shutdownHook;
  private final boolean exitOnStartupOverrun;
  private final Consumer<Step> observer;

  private final Object lock = new Object();
  private BrokerState state = BrokerState.NEW; // guarded by lock
  private ShutdownReason reason; // guarded by lock
  private ServerSocketChannel listener; // guarded by lock
  private SessionRecord published; // guarded by lock
  private final List<ProcessTree> backends = new ArrayList<>(); // guarded by lock
  private final Set<Connection> connections = new LinkedHashSet<>(); // guarded by lock
  private volatile IdleTracker idle;
  private volatile TimerHandle startupGuard = TimerHandle.NONE;
  private volatile Path generationDirectory;
  private volatile Path socketFile;
  private volatile Thread hook;
  private volatile Thread acceptor;
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
    backendGrace = BrokerLimits.BACKEND_GRACE.or(b.backendGrace).asOptional().orElse(Duration.ZERO);
    tcp = b.tcp;
    startup = b.startup;
    shutdownHook = b.shutdownHook;
    exitOnStartupOverrun = b.exitOnStartupOverrun;
    observer = b.observer;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts the broker and returns its published record once it is serving.
   *
   * @throws IOException when starting failed or a shutdown trigger won the race; whatever was
   *     started (backends, listener, record, files) has been taken down before this returns
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
      Thread h =
          new Thread(() -> shutdown(ShutdownReason.JVM_EXIT).join(), "lifecycle-broker-exit");
      Runtime.getRuntime().addShutdownHook(h);
      hook = h;
    }
    try {
      if (startup != null) {
        startup.start(this);
      }
      checkStillStarting();
      Path directory = Files.createTempDirectory(store.directory(), name + ".gen-");
      generationDirectory = directory; // fresh per generation: no reclaim can hit a successor's
      ServerSocketChannel channel;
      Endpoint endpoint;
      if (tcp) {
        channel = ServerSocketChannel.open(StandardProtocolFamily.INET);
        InetAddress loopback = InetAddress.getLoopbackAddress();
        channel.bind(new InetSocketAddress(loopback, 0));
        int port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
        endpoint = Endpoint.tcp(loopback.getHostAddress(), port);
      } else {
        Path socket = directory.resolve(SOCKET_FILE);
        channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        socketFile = socket;
        channel.bind(UnixDomainSocketAddress.of(socket));
        endpoint = Endpoint.unix(socket);
      }
      idle =
          IdleTracker.builder()
              .timeout(idleTimeout)
              .scheduler(scheduler)
              .onIdle(() -> trigger(ShutdownReason.IDLE))
              .build();
      synchronized (lock) {
        if (state != BrokerState.STARTING) {
          channel.close();
          checkStillStarting();
        }
        listener = channel;
      }
      Thread accepting = new Thread(() -> acceptLoop(channel), "lifecycle-broker-accept");
      accepting.setDaemon(true);
      acceptor = accepting;
      accepting.start();
      SessionRecord record = SessionRecord.newGeneration(platform, endpoint, artifacts());
      synchronized (lock) { // publish and shutdown exclude each other: no record outlives a pass
        checkStillStarting();
        store.publish(name, record);
        published = record;
        state = BrokerState.SERVING;
      }
      startupGuard.cancel();
      LOG.info("broker {} serving at {} (pid {})", name, endpoint, record.owner().pid());
      return record;
    } catch (Exception e) {
      ShutdownReport report = shutdown(ShutdownReason.STARTUP_FAILED).join();
      // A pass that won the race may have run before these files existed.
      removeOwnArtifacts(new ArrayList<>(), new ArrayList<>());
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
  }

  /** Idle leases open now (diagnostics and tests). */
  int activeLeases() {
    IdleTracker tracker = idle;
    return tracker == null ? 0 : tracker.activeLeases();
  }

  private Map<ArtifactKind, Path> artifacts() {
    Map<ArtifactKind, Path> artifacts = new EnumMap<>(ArtifactKind.class);
    if (socketFile != null) {
      artifacts.put(ArtifactKind.SOCKET, socketFile);
    }
    artifacts.put(ArtifactKind.DIRECTORY, generationDirectory);
    return artifacts;
  }

  /**
   * Makes {@code tree} a backend of this broker: the shutdown pass terminates it. A tree adopted
   * once the pass has begun is terminated at once (blocking), so none outlives the broker.
   */
  public ProcessTree adopt(ProcessTree tree) {
    Objects.requireNonNull(tree, "tree");
    synchronized (lock) {
      if (state.compareTo(BrokerState.SERVING) <= 0) {
        backends.add(tree);
        return tree;
      }
    }
    LOG.warn("broker {} is shutting down: terminating late backend {}", name, tree);
    tree.terminate(backendGrace);
    return tree;
  }

  /** Spawns {@code builder}'s command as a backend tree and {@link #adopt adopts} it. */
  public ProcessTree spawnBackend(ProcessBuilder builder) throws IOException {
    TreeOptions options = TreeOptions.defaults().withGrace(backendGrace);
    return adopt(ProcessTree.spawn(platform, builder, options));
  }

  /**
   * An idle lease for activity that is not a request (a stream, a subscription): the broker does
   * not idle out while it is open. Close it when the activity ends.
   */
  public IdleTracker.Lease lease() {
    IdleTracker tracker = idle;
    if (tracker == null) {
      throw new IllegalStateException("broker " + name + " is not serving yet");
    }
    return tracker.acquire();
  }

  /** Starts the shutdown pass for {@link ShutdownReason#REQUEST}, or joins the one under way. */
  public CompletableFuture<ShutdownReport> shutdown() {
    return shutdown(ShutdownReason.REQUEST);
  }

  /** From a timer: closing the listener is quick, but nothing may block the shared timer thread. */
  private void trigger(ShutdownReason why) {
    Thread t = new Thread(() -> shutdown(why), "lifecycle-broker-trigger");
    t.setDaemon(
        false); // the pass it starts must not be cut short by the JVM running out of threads
    t.start();
  }

  CompletableFuture<ShutdownReport> shutdown(ShutdownReason why) {
    long started = System.nanoTime();
    ServerSocketChannel closing;
    synchronized (lock) {
      switch (state) {
        case SHUTTING_DOWN, STOPPED -> {
          return stopped.copy();
        }
        case NEW -> {
          state = BrokerState.STOPPED;
          reason = why;
          stopped.complete(
              new ShutdownReport(why, false, List.of(), List.of(), List.of(), Duration.ZERO));
          return stopped.copy();
        }
        default -> {
          state = BrokerState.SHUTTING_DOWN;
          reason = why;
          closing = listener;
        }
      }
    }
    // Before the first wait of the pass: a client can no longer attach to this dying broker.
    List<String> problems = new ArrayList<>();
    if (closing != null) {
      try {
        closing.close();
        awaitAcceptor();
      } catch (IOException e) {
        problems.add("closing the listener: " + e);
      }
    }
    step(Step.LISTENER_CLOSED);
    startupGuard.cancel();
    IdleTracker tracker = idle;
    if (tracker != null) {
      tracker.close();
    }
    LOG.info("broker {} shutting down: {}", name, why);
    Thread pass = new Thread(() -> runPass(why, started, problems), "lifecycle-broker-shutdown");
    pass.setDaemon(false);
    pass.start();
    return stopped.copy();
  }

  /**
   * A thread blocked in accept() keeps the kernel socket listening until it leaves the call, even
   * after close() returned: only once it has left are new connections refused.
   */
  private void awaitAcceptor() {
    Thread accepting = acceptor;
    if (accepting == null || accepting == Thread.currentThread()) {
      return;
    }
    try {
      accepting.join(ACCEPTOR_EXIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (accepting.isAlive()) {
      LOG.warn("broker {}: accept thread still in accept() after {}", name, ACCEPTOR_EXIT);
    }
  }

  private void runPass(ShutdownReason why, long started, List<String> problems) {
    boolean cleared = false;
    List<Path> left = new ArrayList<>();
    List<TerminationReport> reports = new ArrayList<>();
    try {
      List<Connection> open;
      SessionRecord mine;
      synchronized (lock) {
        open = List.copyOf(connections);
        mine = published;
      }
      open.forEach(Connection::close);
      step(Step.CONNECTIONS_CLOSED);
      if (mine != null) {
        try {
          cleared = store.compareAndClear(name, mine.token());
        } catch (IOException | RuntimeException e) {
          problems.add("clearing the record: " + e);
        }
      }
      step(Step.RECORD_CLEARED);
      removeOwnArtifacts(left, problems);
      step(Step.ARTIFACTS_REMOVED);
      List<ProcessTree> trees;
      synchronized (lock) {
        trees = List.copyOf(backends); // adopt() terminates trees itself from now on
      }
      List<CompletableFuture<TerminationReport>> ending = new ArrayList<>();
      for (ProcessTree tree : trees) {
        ending.add(tree.terminateAsync(backendGrace));
      }
      for (CompletableFuture<TerminationReport> end : ending) {
        try {
          reports.add(end.join());
        } catch (RuntimeException e) {
          problems.add("terminating a backend: " + e);
        }
      }
      step(Step.BACKENDS_TERMINATED);
    } catch (Throwable t) {
      problems.add("shutdown pass: " + t);
      LOG.error("broker {} shutdown pass failed", name, t);
    } finally {
      ShutdownReport report =
          new ShutdownReport(
              why, cleared, left, reports, problems, Duration.ofNanos(System.nanoTime() - started));
      synchronized (lock) {
        state = BrokerState.STOPPED;
      }
      LOG.info("broker {} stopped: {}", name, report);
      stopped.complete(report);
      removeHook();
    }
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

  /**
   * Removes the files this generation created; never consults the record, which may be a
   * successor's.
   */
  private void removeOwnArtifacts(List<Path> left, List<String> problems) {
    for (Path path : new Path[] {socketFile, generationDirectory}) {
      if (path == null) {
        continue;
      }
      try {
        Files.deleteIfExists(path);
      } catch (IOException e) {
        left.add(path);
        problems.add("removing " + path + ": " + e);
      }
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

  private void step(Step step) {
    LOG.debug("broker {} shutdown: {}", name, step);
    observer.accept(step);
  }

  private void acceptLoop(ServerSocketChannel channel) {
    while (true) {
      SocketChannel accepted;
      try {
        accepted = channel.accept();
      } catch (ClosedChannelException closed) {
        return;
      } catch (IOException e) {
        if (!channel.isOpen()) {
          return;
        }
        LOG.warn("broker {}: accept failed: {}", name, e.toString());
        pause(); // e.g. EMFILE: do not spin
        continue;
      }
      Connection connection = new Connection(accepted, idle.acquire());
      synchronized (lock) {
        // Greeting under the lock: a client that reads it attached before any shutdown began.
        if (state.compareTo(BrokerState.SERVING) > 0 || !connection.greet()) {
          connection.closeLater();
          continue;
        }
        connections.add(connection);
      }
      Thread reader = new Thread(connection::readLoop, "lifecycle-broker-connection");
      reader.setDaemon(true);
      reader.start();
    }
  }

  private static void pause() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The broker's state now. */
  public BrokerState state() {
    synchronized (lock) {
      return state;
    }
  }

  /** The record this broker published, once serving. */
  public Optional<SessionRecord> record() {
    synchronized (lock) {
      return Optional.ofNullable(published);
    }
  }

  /** Completes with the report when the shutdown pass has finished. */
  public CompletableFuture<ShutdownReport> onStopped() {
    return stopped.copy();
  }

  /**
   * Blocks until the shutdown pass has finished (run by whatever trigger) and returns its report.
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

  /** One client connection: a connection lease, a reader thread, serialized writes. */
  private final class Connection {
    private final SocketChannel channel;
    private final IdleTracker.Lease lease;
    private final AtomicBoolean open = new AtomicBoolean(true);

    Connection(SocketChannel channel, IdleTracker.Lease lease) {
      this.channel = channel;
      this.lease = lease;
    }

    void readLoop() {
      ByteBuffer buffer = ByteBuffer.allocate(8192);
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      try {
        while (channel.read(buffer) >= 0) {
          buffer.flip();
          while (buffer.hasRemaining()) {
            byte b = buffer.get();
            if (b == '\n') {
              dispatch(line.toString(UTF_8));
              line.reset();
            } else if (line.size() >= MAX_LINE_BYTES) {
              throw new IOException("request line longer than " + MAX_LINE_BYTES + " bytes");
            } else {
              line.write(b);
            }
          }
          buffer.clear();
        }
      } catch (IOException e) {
        LOG.debug("broker {}: connection ended: {}", name, e.toString());
      } finally {
        close(); // the connection lease ends here; requests in flight keep their own
      }
    }

    private void dispatch(String text) {
      String request = text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
      IdleTracker.Lease inFlight = idle.acquire();
      CompletionStage<String> reply;
      try {
        reply = handler.handle(new BrokerRequest(request, BrokerRuntime.this, open::get));
      } catch (Exception | LinkageError e) {
        LOG.warn("broker {}: handler failed on {}", name, request, e);
        inFlight.close();
        return;
      }
      if (reply == null) {
        inFlight.close();
        return;
      }
      reply.whenComplete(
          (response, failure) -> {
            try {
              if (failure != null) {
                LOG.warn("broker {}: request {} failed", name, request, failure);
              } else if (response != null) {
                send(response);
              }
            } finally {
              inFlight.close(); // after the response: one idle window starts from here
            }
          });
    }

    /** Writes {@link #GREETING}; false when the client already left (e.g. a probe). */
    boolean greet() {
      ByteBuffer bytes = ByteBuffer.wrap((GREETING + "\n").getBytes(UTF_8));
      synchronized (this) {
        try {
          while (bytes.hasRemaining()) {
            channel.write(bytes);
          }
          return true;
        } catch (IOException e) {
          return false;
        }
      }
    }

    private void send(String response) {
      ByteBuffer bytes = ByteBuffer.wrap((response + "\n").getBytes(UTF_8));
      synchronized (this) {
        if (!open.get()) {
          return; // the client left: the work is done, the reply has nobody to go to
        }
        try {
          while (bytes.hasRemaining()) {
            channel.write(bytes);
          }
        } catch (IOException e) {
          LOG.debug("broker {}: reply not delivered: {}", name, e.toString());
          close();
        }
      }
    }

    void close() {
      if (open.compareAndSet(true, false)) {
        try {
          channel.close();
        } catch (IOException e) {
          LOG.debug("broker {}: closing a connection: {}", name, e.toString());
        }
        synchronized (lock) {
          connections.remove(this);
        }
        lease.close();
      }
    }

    /** Closes a connection refused during shutdown, outside the broker's lock. */
    void closeLater() {
      open.set(false);
      try {
        channel.close();
      } catch (IOException e) {
        LOG.debug("broker {}: closing a refused connection: {}", name, e.toString());
      }
      lease.close();
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
    private Limit backendGrace;
    private boolean tcp;
    private Startup startup;
    private boolean shutdownHook = true;
    private boolean exitOnStartupOverrun = true;
    private Consumer<Step> observer = step -> {};

    private Builder() {}

    /** Where the record is published. */
    public Builder store(RecordStore value) {
      store = Objects.requireNonNull(value, "store");
      return this;
    }

    /** The record name clients look up. */
    public Builder name(String value) {
      name = Objects.requireNonNull(value, "name");
      return this;
    }

    /** Serves request lines. */
    public Builder handler(RequestHandler value) {
      handler = Objects.requireNonNull(value, "handler");
      return this;
    }

    /** Starts the backends under the startup bound, before the listener is bound. */
    public Builder startup(Startup value) {
      startup = Objects.requireNonNull(value, "startup");
      return this;
    }

    /** Default {@link ProcessPlatform#get()}. */
    public Builder platform(ProcessPlatform value) {
      platform = Objects.requireNonNull(value, "platform");
      return this;
    }

    /** Default {@link TimerScheduler#system()}; tests pass virtual time. */
    public Builder scheduler(TimerScheduler value) {
      scheduler = Objects.requireNonNull(value, "scheduler");
      return this;
    }

    /** Default {@link BrokerLimits#STARTUP}. */
    public Builder startupTimeout(Limit value) {
      startupTimeout = Objects.requireNonNull(value, "startupTimeout");
      return this;
    }

    /** Default {@link BrokerLimits#IDLE}. */
    public Builder idleTimeout(Limit value) {
      idleTimeout = Objects.requireNonNull(value, "idleTimeout");
      return this;
    }

    /** Default {@link BrokerLimits#BACKEND_GRACE}; disabled means SIGKILL right after SIGTERM. */
    public Builder backendGrace(Limit value) {
      backendGrace = Objects.requireNonNull(value, "backendGrace");
      return this;
    }

    /** Listen on TCP loopback (an ephemeral port) instead of a Unix domain socket. */
    public Builder tcpLoopback() {
      tcp = true;
      return this;
    }

    /**
     * Whether a JVM shutdown hook runs (and waits for) the shutdown pass on SIGTERM, SIGINT and
     * {@code System.exit}; default true. Turn it off only when the embedding code does that itself.
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

    /** Tests: sees each step of the shutdown pass as it completes. */
    Builder observer(Consumer<Step> value) {
      observer = Objects.requireNonNull(value, "observer");
      return this;
    }

    public BrokerRuntime build() {
      return new BrokerRuntime(this);
    }
  }
}
