package dev.lifecycle.broker;

import dev.lifecycle.internal.Backoff;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.ReadResult;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.record.SessionRecord;
import dev.lifecycle.time.Limit;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The client side: finds the serving broker of a record name, or starts exactly one. Thread-safe.
 *
 * <pre>{@code
 * BrokerClient client = BrokerClient.builder()
 *     .store(RecordStore.open(workspace.resolve(".broker"))).name("workspace")
 *     .command(() -> new ProcessBuilder("java", "-cp", classPath, "my.Broker"))
 *     .build();
 * try (BrokerConnection connection = client.connection()) { // starts the broker if none serves
 *   String reply = connection.call("status", Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>{@link #ensure()} is single-flight across threads (callers in one JVM share one attempt) and
 * across processes (a start lock file beside the record, held while checking the record, spawning
 * and waiting for readiness). If a starter dies while holding the lock, the next one may spawn a
 * second broker; the brokers themselves then settle it: a broker never publishes over a live,
 * reachable one ({@link RecordStore#publishIfVacant}), so exactly one serves and the other exits.
 * Under the lock the record decides: {@code VALID} is reused; {@code ABSENT}, {@code OWNER_GONE}
 * (already reclaimed by the read) and {@code CORRUPT} (quarantined) start a new broker; {@code
 * UNRESPONSIVE} is an owner that may be alive, so it is never deleted or signalled: it gets {@link
 * BrokerLimits#UNRESPONSIVE_WAIT} to answer or clear its record, then {@code ensure()} fails naming
 * its pid.
 *
 * <p>A new broker is spawned as a detached {@link dev.lifecycle.tree.ProcessTree} (its own session;
 * pipes become {@code /dev/null} or discard, since nobody reads them once this client is gone) and
 * must publish a record naming itself with a reachable endpoint within {@link BrokerLimits#READY}.
 * If it does not, its tree is terminated and its record reclaimed before {@code ensure()} fails: a
 * live broker is never left behind without its files. On success it is left running: its own idle
 * timeout ends it.
 *
 * <p>The spawned command gets {@link #DIRECTORY_VARIABLE} and {@link #NAME_VARIABLE} in its
 * environment. Thread-safe.
 */
public final class BrokerClient {
  private static final LazyLogger LOG = LazyLogger.of(BrokerClient.class);

  /** The record store directory, exported to a spawned broker. */
  public static final String DIRECTORY_VARIABLE = "LIFECYCLE_BROKER_DIRECTORY";

  /** The record name, exported to a spawned broker. */
  public static final String NAME_VARIABLE = "LIFECYCLE_BROKER_NAME";

  /** How long a broker that missed its readiness bound gets after SIGTERM to run its own pass. */
  static final Duration STOP_GRACE = Launcher.STOP_GRACE;

  /** Connect attempts: a broker can close its listener between our read and our connect. */
  private static final int CONNECT_ATTEMPTS = 3;

  private static final SingleFlight<Path, BrokerSession> FLIGHTS = new SingleFlight<>();

  private final RecordStore store;
  private final String name;
  private final Supplier<ProcessBuilder> command;
  private final Limit startLockTimeout;
  private final Limit unresponsiveWait;
  private final Launcher launcher;

  private BrokerClient(Builder b) {
    store = Objects.requireNonNull(b.store, "store not set");
    name = Objects.requireNonNull(b.name, "name not set");
    store.recordFile(name);
    command = Objects.requireNonNull(b.command, "command not set");
    ProcessPlatform platform = b.platform != null ? b.platform : ProcessPlatform.get();
    startLockTimeout = BrokerLimits.START_LOCK.or(b.startLockTimeout);
    unresponsiveWait = BrokerLimits.UNRESPONSIVE_WAIT.or(b.unresponsiveWait);
    launcher = new Launcher(store, name, platform, BrokerLimits.READY.or(b.readyTimeout));
  }

  /**
   * A builder for a client; a store, a name and a command must be set.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a serving broker, starting one if none serves. Every wait is bounded by the client's
   * limits.
   *
   * @return the serving broker's endpoint and pid, and whether this call started it
   * @throws BrokerException when no broker could be reached or started (naming the pid involved)
   * @throws IOException when the record store fails
   */
  public BrokerSession ensure() throws IOException {
    ReadResult seen = store.read(name); // the warm path takes no lock
    if (seen.isValid()) {
      return new BrokerSession(seen.record().orElseThrow(), false);
    }
    return FLIGHTS.run(
        store.recordFile(name),
        () -> StartLock.holding(store, name, startLockTimeout, this::ensureUnderStartLock));
  }

  /**
   * {@link #ensure()} and opens a {@link BrokerConnection} (greeting consumed). When the broker
   * closes its listener between the two (it is shutting down), ensures again: a refused connect
   * means "start a new one".
   *
   * @return an open connection past the greeting
   * @throws BrokerException when the broker does not greet, or no connection succeeded after a few
   *     ensures
   * @throws IOException when the record store fails
   */
  public BrokerConnection connection() throws IOException {
    IOException last = null;
    for (int attempt = 1; attempt <= CONNECT_ATTEMPTS; attempt++) {
      BrokerSession session = ensure();
      try {
        return BrokerConnection.open(session.endpoint());
      } catch (SocketTimeoutException e) {
        // Alive and accepting, but silent: not ours to replace or signal; its guards end it.
        throw new BrokerException(
            "broker "
                + name
                + " (pid "
                + session.pid()
                + ") did not greet at "
                + session.endpoint()
                + "; left alone, not starting a second one",
            session.pid(),
            e);
      } catch (IOException e) {
        LOG.debug("broker {} at {} refused: {}; ensuring again", name, session.endpoint(), e);
        last = e;
      }
    }
    throw new BrokerException(
        "could not connect to broker " + name + " in " + CONNECT_ATTEMPTS + " attempts", 0, last);
  }

  /**
   * Like {@link #connection()}, as a raw blocking channel past the greeting.
   *
   * @return a blocking channel whose next bytes are the broker's replies
   * @throws IOException as {@link #connection()}
   * @deprecated use {@link #connection()}: its calls are framed and bounded
   */
  @Deprecated
  public SocketChannel connect() throws IOException {
    return connection().detach();
  }

  /**
   * Connects to a broker's endpoint and consumes its greeting, as a raw blocking channel.
   *
   * @param endpoint the broker's endpoint
   * @return a blocking channel whose next bytes are the broker's replies
   * @throws IOException when it cannot connect or the greeting does not come
   * @deprecated use {@link BrokerConnection#open(Endpoint)}: its calls are framed and bounded
   */
  @Deprecated
  public static SocketChannel open(Endpoint endpoint) throws IOException {
    return BrokerConnection.open(endpoint).detach();
  }

  private BrokerSession ensureUnderStartLock() throws IOException {
    long unresponsiveSince = 0;
    int cleanExits = 0;
    Backoff backoff = Backoff.fileWait();
    while (true) {
      ReadResult result = store.read(name);
      switch (result.status()) {
        case VALID:
          return new BrokerSession(result.record().orElseThrow(), false);
        case ABSENT:
        case OWNER_GONE:
        case CORRUPT:
          store.sweep(name); // litter of brokers killed before any record named their files
          try {
            return launcher.launch(Objects.requireNonNull(command.get(), "command returned null"));
          } catch (Launcher.ExitedCleanly e) {
            if (++cleanExits >= CONNECT_ATTEMPTS) {
              throw new BrokerException(e.getMessage(), e.pid, e);
            }
            break; // read the record again and start over
          }
        case UNRESPONSIVE:
          SessionRecord record = result.record().orElseThrow();
          long now = System.nanoTime();
          if (unresponsiveSince == 0) {
            unresponsiveSince = now;
          }
          if (!unresponsiveWait.isEnabled()
              || now - unresponsiveSince >= unresponsiveWait.toNanos()) {
            throw new BrokerException(
                "broker "
                    + name
                    + " (pid "
                    + record.owner().pid()
                    + ") is alive but did not answer at "
                    + record.endpoint()
                    + " within "
                    + unresponsiveWait
                    + "; left alone (its own guards end it), not starting a second one",
                record.owner().pid());
          }
          backoff.pause();
          break;
        default:
          throw new BrokerException(
              "broker record " + name + " is " + result.status() + ": " + result.problem(), 0);
      }
    }
  }

  /** Builds a {@link BrokerClient}; store, name and command are required. */
  public static final class Builder {
    private RecordStore store;
    private String name;
    private Supplier<ProcessBuilder> command;
    private ProcessPlatform platform;
    private Limit readyTimeout;
    private Limit startLockTimeout;
    private Limit unresponsiveWait;

    private Builder() {}

    /**
     * The store the broker's record is looked up in (and published in by a started broker).
     *
     * @param value the store
     * @return this builder
     */
    public Builder store(RecordStore value) {
      store = Objects.requireNonNull(value, "store");
      return this;
    }

    /**
     * The record name of the broker.
     *
     * @param value the name
     * @return this builder
     */
    public Builder name(String value) {
      name = Objects.requireNonNull(value, "name");
      return this;
    }

    /**
     * A fresh builder of the broker's command line per start.
     *
     * @param value called once per start for the command that starts a broker
     * @return this builder
     */
    public Builder command(Supplier<ProcessBuilder> value) {
      command = Objects.requireNonNull(value, "command");
      return this;
    }

    /**
     * Default {@link ProcessPlatform#get()}.
     *
     * @param value the platform that spawns and probes brokers
     * @return this builder
     */
    public Builder platform(ProcessPlatform value) {
      platform = Objects.requireNonNull(value, "platform");
      return this;
    }

    /**
     * Default {@link BrokerLimits#READY}.
     *
     * @param value from spawning a broker until its record names a reachable endpoint
     * @return this builder
     */
    public Builder readyTimeout(Limit value) {
      readyTimeout = Objects.requireNonNull(value, "readyTimeout");
      return this;
    }

    /**
     * Default {@link BrokerLimits#START_LOCK}.
     *
     * @param value how long to wait for the cross-process start lock
     * @return this builder
     */
    public Builder startLockTimeout(Limit value) {
      startLockTimeout = Objects.requireNonNull(value, "startLockTimeout");
      return this;
    }

    /**
     * Default {@link BrokerLimits#UNRESPONSIVE_WAIT}.
     *
     * @param value how long a live broker's silent endpoint is given to answer
     * @return this builder
     */
    public Builder unresponsiveWait(Limit value) {
      unresponsiveWait = Objects.requireNonNull(value, "unresponsiveWait");
      return this;
    }

    /**
     * Builds the client; unset limits resolve from configuration ({@link BrokerLimits#resolve()}).
     *
     * @return a new client
     * @throws NullPointerException if the store, the name or the command is unset
     */
    public BrokerClient build() {
      return new BrokerClient(this);
    }
  }
}
