package dev.lifecycle.broker;

import dev.lifecycle.internal.Lifecycle;
import dev.lifecycle.internal.Threads;
import dev.lifecycle.record.SessionRecord;
import dev.lifecycle.time.IdleTracker;
import dev.lifecycle.tree.ProcessTree;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one {@link BrokerRuntime}, as its javadoc describes it: start once, the first
 * shutdown trigger wins and every later one joins its pass. Ties the parts together ({@link
 * Listener}, {@link Connection}, {@link Backends}, {@link ShutdownPass}, {@link StartupBound},
 * {@link ExitHook}); its lock guards the state, the listener, the published record and the open
 * connections. Thread-safe.
 */
final class StateMachine {
  // The runtime's logger: its lines keep the name embedders configure their level by.
  private static final Logger LOG = LoggerFactory.getLogger(BrokerRuntime.class);

  private final BrokerRuntime runtime;
  private final BrokerSettings settings;
  private final String name;
  private final Backends backends;
  private final ShutdownPass pass;
  private final StartupBound startupBound;
  private final ExitHook hook;
  private final GenerationFiles files = new GenerationFiles();
  private final Host host = new Host();
  // The first trigger's reason; the report of the one pass. Its guards: the startup bound, idling.
  private final Lifecycle<ShutdownReason, ShutdownReport> life = new Lifecycle<>();

  private final Object lock = new Object();
  private BrokerState state = BrokerState.NEW; // guarded by lock
  private Listener listener; // guarded by lock
  private SessionRecord published; // guarded by lock
  private final Set<Connection> connections = new LinkedHashSet<>(); // guarded by lock
  private volatile IdleTracker idle;

  StateMachine(BrokerRuntime runtime, BrokerSettings settings) {
    this.runtime = runtime;
    this.settings = settings;
    this.name = settings.name;
    backends = new Backends(runtime, settings.backendExit);
    pass = new ShutdownPass(settings.store, name, settings.backendGrace, settings.observer);
    startupBound = new StartupBound(settings);
    hook = new ExitHook(settings.shutdownHook);
  }

  SessionRecord start() throws IOException {
    synchronized (lock) {
      if (!life.start()) {
        throw new IllegalStateException("broker " + name + " already started: " + state);
      }
      state = BrokerState.STARTING;
      // Armed with the state change, so whoever sees STARTING also sees the bound.
      startupBound.arm(() -> trigger(ShutdownReason.STARTUP_OVERRUN));
      life.guard(startupBound::cancel);
    }
    hook.install(() -> shutdown(ShutdownReason.JVM_EXIT).join());
    ShutdownReason failure = ShutdownReason.STARTUP_FAILED;
    try {
      if (settings.startup != null) {
        settings.startup.start(runtime);
      }
      settings.phases.reached(PhaseHook.Phase.STARTING);
      checkStillStarting();
      files.create(settings.store, name);
      Listener bound =
          settings.tcp ? Listener.tcpLoopback(name) : Listener.unix(name, files.forSocket());
      idle =
          IdleTracker.builder()
              .timeout(settings.idleTimeout)
              .scheduler(settings.scheduler)
              .onIdle(() -> trigger(ShutdownReason.IDLE))
              .build();
      life.guard(idle::close);
      synchronized (lock) {
        if (state != BrokerState.STARTING) {
          bound.close();
          checkStillStarting();
        }
        listener = bound;
      }
      bound.start(this::accepted);
      SessionRecord record =
          SessionRecord.newGeneration(settings.platform, bound.endpoint(), files.artifacts());
      settings.phases.reached(PhaseHook.Phase.PUBLISHING);
      synchronized (lock) { // publish and shutdown exclude each other: no record outlives a pass
        checkStillStarting();
        Optional<SessionRecord> other = settings.store.publishIfVacant(name, record);
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
      settings.phases.reached(PhaseHook.Phase.SERVING);
      startupBound.cancel();
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
        throw new IOException(
            "broker " + name + " was shut down while starting: " + life.reason().orElse(null));
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

  ProcessTree adopt(ProcessTree tree) {
    if (backends.add(tree)) {
      return tree;
    }
    LOG.warn("broker {} is shutting down: terminating late backend {}", name, tree);
    tree.terminate(settings.backendGrace);
    return tree;
  }

  /** The idle tracker, once the broker is about to listen; null before. */
  IdleTracker idle() {
    return idle;
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
          return life.report();
        }
        case NEW -> {
          state = BrokerState.STOPPED;
          life.stop(why);
          backends.close();
          life.complete(
              new ShutdownReport(why, false, List.of(), List.of(), List.of(), Duration.ZERO));
          return life.report();
        }
        default -> {
          IdleTracker tracker = idle;
          if (why == ShutdownReason.IDLE && tracker != null && tracker.activeLeases() > 0) {
            // A client was accepted (and greeted) between the idle decision and here: it keeps
            // the broker, and the tracker re-arms when its lease closes.
            return life.report();
          }
          state = BrokerState.SHUTTING_DOWN;
          life.stop(why); // cancels the startup bound and the idle timer
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
    LOG.info("broker {} shutting down: {}", name, why);
    Threads.startKeepingJvm("lifecycle-broker-shutdown", () -> runPass(why, started, problems));
    return life.report();
  }

  private void runPass(ShutdownReason why, long started, List<String> problems) {
    settings.phases.reached(PhaseHook.Phase.STOPPING);
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
    OrphanedCgroup.leave(settings.platform, settings.tether);
    LOG.info("broker {} stopped: {}", name, report);
    life.complete(report);
    hook.remove();
    if (why == ShutdownReason.STARTUP_OVERRUN) {
      startupBound.overran();
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

  BrokerState state() {
    synchronized (lock) {
      return state;
    }
  }

  Optional<SessionRecord> record() {
    synchronized (lock) {
      return Optional.ofNullable(published);
    }
  }

  /** Completes with the report of the pass; a copy, so callers cannot complete it. */
  CompletableFuture<ShutdownReport> stopped() {
    return life.report();
  }

  ShutdownReport awaitStopped() {
    return life.awaitReport();
  }

  /** What connections see of the broker. */
  private final class Host implements Connection.Host {
    @Override
    public String name() {
      return name;
    }

    @Override
    public RequestHandler handler() {
      return settings.handler;
    }

    @Override
    public BrokerRuntime runtime() {
      return runtime;
    }

    @Override
    public boolean answering() {
      return StateMachine.this.answering();
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
}
