package dev.lifecycle.broker;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.WRITE;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.ReadResult;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.record.SessionRecord;
import dev.lifecycle.time.Limit;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeOptions;
import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side: finds the serving broker of a record name, or starts exactly one.
 *
 * <p>{@link #ensure()} is single-flight across threads (callers in one JVM share one attempt) and
 * across processes (a start lock file beside the record, held while checking the record, spawning
 * and waiting for readiness). Under the lock the record decides: {@code VALID} is reused; {@code
 * ABSENT}, {@code OWNER_GONE} (already reclaimed by the read) and {@code CORRUPT} (quarantined)
 * start a new broker; {@code UNRESPONSIVE} is an owner that may be alive, so it is never deleted or
 * signalled: it gets {@link BrokerLimits#UNRESPONSIVE_WAIT} to answer or clear its record, then
 * {@code ensure()} fails naming its pid.
 *
 * <p>A new broker is spawned as a detached {@link ProcessTree} (its own session; pipes become
 * {@code /dev/null} or discard, since nobody reads them once this client is gone) and must publish
 * a record naming itself with a reachable endpoint within {@link BrokerLimits#READY}. If it does
 * not, its tree is terminated and its record reclaimed before {@code ensure()} fails: a live broker
 * is never left behind without its files. On success it is left running: its own idle timeout ends
 * it.
 *
 * <p>The spawned command gets {@link #DIRECTORY_VARIABLE} and {@link #NAME_VARIABLE} in its
 * environment.
 */
public final class BrokerClient {
  private static final Logger LOG = LoggerFactory.getLogger(BrokerClient.class);

  /** The record store directory, exported to a spawned broker. */
  /** A live broker greets at once; this only bounds a wedged accept thread. */
  static final Duration GREETING_TIMEOUT = Duration.ofSeconds(10);

  public static final String DIRECTORY_VARIABLE = "LIFECYCLE_BROKER_DIRECTORY";

  /** The record name, exported to a spawned broker. */
  public static final String NAME_VARIABLE = "LIFECYCLE_BROKER_NAME";

  /** How long a broker that missed its readiness bound gets after SIGTERM to run its own pass. */
  static final Duration STOP_GRACE = TreeOptions.DEFAULT_GRACE;

  /** Connect attempts: a broker can close its listener between our read and our connect. */
  private static final int CONNECT_ATTEMPTS = 3;

  private static final ConcurrentHashMap<Path, CompletableFuture<BrokerSession>> IN_FLIGHT =
      new ConcurrentHashMap<>();

  private final RecordStore store;
  private final String name;
  private final Supplier<ProcessBuilder> command;
  private final ProcessPlatform platform;
  private final Limit readyTimeout;
  private final Limit startLockTimeout;
  private final Limit unresponsiveWait;

  private BrokerClient(Builder b) {
    store = Objects.requireNonNull(b.store, "store not set");
    name = Objects.requireNonNull(b.name, "name not set");
    store.recordFile(name);
    command = Objects.requireNonNull(b.command, "command not set");
    platform = b.platform != null ? b.platform : ProcessPlatform.get();
    readyTimeout = BrokerLimits.READY.or(b.readyTimeout);
    startLockTimeout = BrokerLimits.START_LOCK.or(b.startLockTimeout);
    unresponsiveWait = BrokerLimits.UNRESPONSIVE_WAIT.or(b.unresponsiveWait);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a serving broker, starting one if none serves. Every wait is bounded by the client's
   * limits.
   *
   * @throws BrokerException when no broker could be reached or started (naming the pid involved)
   * @throws IOException when the record store fails
   */
  public BrokerSession ensure() throws IOException {
    ReadResult seen = store.read(name); // the warm path takes no lock
    if (seen.isValid()) {
      return new BrokerSession(seen.record().orElseThrow(), false);
    }
    Path key = store.recordFile(name);
    CompletableFuture<BrokerSession> mine = new CompletableFuture<>();
    CompletableFuture<BrokerSession> flight = IN_FLIGHT.putIfAbsent(key, mine);
    if (flight == null) { // this thread leads; the others of this JVM share its outcome
      try {
        mine.complete(ensureUnderStartLock());
      } catch (Throwable t) {
        mine.completeExceptionally(t);
      } finally {
        IN_FLIGHT.remove(key, mine);
      }
      flight = mine;
    }
    try {
      return flight.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof BrokerException b) {
        throw new BrokerException(b.getMessage(), b.pid().orElse(0), b);
      }
      if (cause instanceof IOException io) {
        throw new IOException(io.getMessage(), io);
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /**
   * {@link #ensure()} and connects to the broker. When the broker closes its listener between the
   * two (it is shutting down), ensures again: a refused connect means "start a new one".
   */
  public SocketChannel connect() throws IOException {
    IOException last = null;
    for (int attempt = 1; attempt <= CONNECT_ATTEMPTS; attempt++) {
      BrokerSession session = ensure();
      try {
        return open(session.endpoint());
      } catch (IOException e) {
        LOG.debug("broker {} at {} refused: {}; ensuring again", name, session.endpoint(), e);
        last = e;
      }
    }
    throw new BrokerException(
        "could not connect to broker " + name + " in " + CONNECT_ATTEMPTS + " attempts", 0, last);
  }

  /**
   * Connects to a broker's endpoint and consumes its {@link BrokerRuntime#GREETING}. A connection
   * closed without one was queued by a broker that is shutting down: it fails like a refused
   * connect, so callers start over.
   */
  public static SocketChannel open(Endpoint endpoint) throws IOException {
    SocketChannel channel;
    if (endpoint instanceof Endpoint.UnixSocket unix) {
      channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    } else {
      channel = SocketChannel.open(StandardProtocolFamily.INET);
    }
    try {
      channel.connect(
          endpoint instanceof Endpoint.UnixSocket unix
              ? UnixDomainSocketAddress.of(unix.path())
              : new InetSocketAddress(
                  ((Endpoint.Tcp) endpoint).host(), ((Endpoint.Tcp) endpoint).port()));
      awaitGreeting(channel, endpoint);
      return channel;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** Reads the greeting line within {@link #GREETING_TIMEOUT}; nothing else precedes a request. */
  private static void awaitGreeting(SocketChannel channel, Endpoint endpoint) throws IOException {
    byte[] expected = (BrokerRuntime.GREETING + "\n").getBytes(StandardCharsets.UTF_8);
    ByteBuffer line = ByteBuffer.allocate(expected.length);
    channel.configureBlocking(false);
    try (Selector selector = Selector.open()) {
      channel.register(selector, SelectionKey.OP_READ);
      long deadline = System.nanoTime() + GREETING_TIMEOUT.toNanos();
      while (line.hasRemaining()) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          throw new ConnectException("no greeting from the broker at " + endpoint + " in time");
        }
        selector.select(left);
        selector.selectedKeys().clear();
        if (channel.read(line) < 0) {
          throw new ConnectException(
              "the broker at " + endpoint + " closed the connection: it is shutting down");
        }
      }
    }
    channel.configureBlocking(true);
    if (!Arrays.equals(line.array(), expected)) {
      throw new IOException("not a lifecycle broker at " + endpoint);
    }
  }

  private BrokerSession ensureUnderStartLock() throws IOException {
    Path lockFile = store.directory().resolve(name + ".start-lock");
    try (FileChannel channel =
            FileChannel.open(
                lockFile,
                Set.of(CREATE, WRITE, NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
        FileLock ignored = startLock(channel, lockFile)) {
      long unresponsiveSince = 0;
      Backoff backoff = new Backoff();
      while (true) {
        ReadResult result = store.read(name);
        switch (result.status()) {
          case VALID:
            return new BrokerSession(result.record().orElseThrow(), false);
          case ABSENT:
          case OWNER_GONE:
          case CORRUPT:
            return start();
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
  }

  private FileLock startLock(FileChannel channel, Path lockFile) throws IOException {
    long started = System.nanoTime();
    Backoff backoff = new Backoff();
    while (true) {
      try {
        FileLock lock = channel.tryLock();
        if (lock != null) {
          return lock;
        }
      } catch (OverlappingFileLockException e) {
        // Another thread of this JVM holds it through another client: wait like any process.
      }
      if (startLockTimeout.isEnabled()
          && System.nanoTime() - started >= startLockTimeout.toNanos()) {
        throw new BrokerException(
            lockFile + " was held by another starter for more than " + startLockTimeout, 0);
      }
      backoff.pause();
    }
  }

  private BrokerSession start() throws IOException {
    ProcessBuilder builder = Objects.requireNonNull(command.get(), "command returned null");
    builder.environment().put(DIRECTORY_VARIABLE, store.directory().toString());
    builder.environment().put(NAME_VARIABLE, name);
    // Detached: nobody reads its pipes once this client is gone, and a full pipe would stall it.
    if (builder.redirectInput() == Redirect.PIPE) {
      builder.redirectInput(Redirect.from(new File("/dev/null")));
    }
    if (builder.redirectOutput() == Redirect.PIPE) {
      builder.redirectOutput(Redirect.DISCARD);
    }
    if (builder.redirectError() == Redirect.PIPE) {
      builder.redirectError(Redirect.DISCARD);
    }
    ProcessTree tree =
        ProcessTree.spawn(platform, builder, TreeOptions.defaults().withGrace(STOP_GRACE));
    long pid = tree.leader().pid();
    LOG.info("started broker {} as pid {}", name, pid);
    long started = System.nanoTime();
    Backoff backoff = new Backoff();
    try {
      while (true) {
        ReadResult result = store.read(name);
        if (result.isValid() && result.record().orElseThrow().owner().pid() == pid) {
          // Handed off: it outlives us. Reap it when it exits so a long-lived client keeps no
          // zombie.
          tree.leader().onExit().thenRun(tree.leader()::reap);
          return new BrokerSession(result.record().orElseThrow(), true);
        }
        if (!tree.leader().isAlive()) {
          throw new BrokerException(
              "broker "
                  + name
                  + " (pid "
                  + pid
                  + ") exited with status "
                  + tree.leader().exitValue()
                  + " before it was serving",
              pid);
        }
        if (readyTimeout.isEnabled() && System.nanoTime() - started >= readyTimeout.toNanos()) {
          throw new BrokerException(
              "broker "
                  + name
                  + " (pid "
                  + pid
                  + ") was not serving within "
                  + readyTimeout
                  + "; its tree was terminated",
              pid);
        }
        backoff.pause();
      }
    } catch (IOException | RuntimeException | Error e) {
      abandon(tree, e);
      throw e;
    }
  }

  /** A broker that never became ready: end its tree, then let a read reclaim its record. */
  private void abandon(ProcessTree tree, Throwable why) {
    try {
      TerminationReport report = tree.terminate(STOP_GRACE); // identity-checked, ends in SIGKILL
      if (!report.isComplete()) {
        why.addSuppressed(new IllegalStateException("broker tree survivors: " + report));
      }
      store.read(name); // owner proven gone: its record and artifacts are reclaimed
    } catch (IOException | RuntimeException e) {
      why.addSuppressed(e);
    }
  }

  /** Polling pause for files and locks that other processes change: 2 ms doubling to 50 ms. */
  private static final class Backoff {
    private long millis = 2;

    void pause() throws InterruptedIOException {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while ensuring a broker");
      }
      millis = Math.min(50, millis * 2);
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

    public Builder store(RecordStore value) {
      store = Objects.requireNonNull(value, "store");
      return this;
    }

    public Builder name(String value) {
      name = Objects.requireNonNull(value, "name");
      return this;
    }

    /** A fresh builder of the broker's command line per start. */
    public Builder command(Supplier<ProcessBuilder> value) {
      command = Objects.requireNonNull(value, "command");
      return this;
    }

    /** Default {@link ProcessPlatform#get()}. */
    public Builder platform(ProcessPlatform value) {
      platform = Objects.requireNonNull(value, "platform");
      return this;
    }

    /** Default {@link BrokerLimits#READY}. */
    public Builder readyTimeout(Limit value) {
      readyTimeout = Objects.requireNonNull(value, "readyTimeout");
      return this;
    }

    /** Default {@link BrokerLimits#START_LOCK}. */
    public Builder startLockTimeout(Limit value) {
      startLockTimeout = Objects.requireNonNull(value, "startLockTimeout");
      return this;
    }

    /** Default {@link BrokerLimits#UNRESPONSIVE_WAIT}. */
    public Builder unresponsiveWait(Limit value) {
      unresponsiveWait = Objects.requireNonNull(value, "unresponsiveWait");
      return this;
    }

    public BrokerClient build() {
      return new BrokerClient(this);
    }
  }
}
