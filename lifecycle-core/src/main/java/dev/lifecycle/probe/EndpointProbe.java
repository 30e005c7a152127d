package dev.lifecycle.probe;

import dev.lifecycle.internal.Durations;
import dev.lifecycle.internal.Threads;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Connects to an endpoint and closes the connection at once, within a bound. Thread-safe (static
 * methods only).
 *
 * <p>The connect is blocking and a shared watchdog closes the channel when the bound expires. One
 * mechanism covers both ways a connect can hang: a TCP listener whose accept queue is full drops
 * the SYN (the client retransmits for minutes), and a Unix domain socket connect to a full backlog
 * blocks in the kernel (a non-blocking one fails with EAGAIN, which would read as an error).
 */
public final class EndpointProbe {

  /**
   * 150 ms: a live listener on this machine accepts in well under a millisecond even when busy, and
   * callers on a start path cannot wait longer; a miss only means "not now", never "gone".
   */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(150);

  private EndpointProbe() {}

  /**
   * {@link #probe(Endpoint, Duration)} with {@link #DEFAULT_TIMEOUT}.
   *
   * @param endpoint where to connect
   * @return what the probe observed
   */
  public static ProbeResult probe(Endpoint endpoint) {
    return probe(endpoint, DEFAULT_TIMEOUT);
  }

  /**
   * Connects to {@code endpoint}, giving up after {@code timeout} (clamped to about 292 years).
   * Returns within the timeout plus scheduling delay; never throws for network conditions. An
   * interrupt ends the probe early as {@link ProbeResult.Status#ERROR} and stays set.
   *
   * @param endpoint where to connect
   * @param timeout the longest the connect may take, positive
   * @return what the probe observed, with how long it took
   * @throws IllegalArgumentException when {@code timeout} is not positive
   */
  public static ProbeResult probe(Endpoint endpoint, Duration timeout) {
    Objects.requireNonNull(endpoint, "endpoint");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("probe timeout must be positive: " + timeout);
    }
    long timeoutNanos = Durations.saturatedNanos(timeout);
    long start = System.nanoTime();
    ProbeResult.Status status;
    IOException error = null;
    try {
      status = connect(endpoint, timeoutNanos);
    } catch (IOException e) {
      status = ProbeResult.Status.ERROR;
      error = e;
    }
    return new ProbeResult(endpoint, status, Duration.ofNanos(System.nanoTime() - start), error);
  }

  private static ProbeResult.Status connect(Endpoint endpoint, long timeoutNanos)
      throws IOException {
    SocketAddress address;
    SocketChannel channel;
    if (endpoint instanceof Endpoint.UnixSocket unix) {
      if (!Files.exists(unix.path())) {
        return ProbeResult.Status.NOT_FOUND;
      }
      address = UnixDomainSocketAddress.of(unix.path());
      channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    } else {
      Endpoint.Tcp tcp = (Endpoint.Tcp) endpoint;
      InetSocketAddress inet = new InetSocketAddress(tcp.host(), tcp.port());
      if (inet.isUnresolved()) {
        throw new UnknownHostException(tcp.host());
      }
      address = inet;
      channel = SocketChannel.open();
    }
    AtomicBoolean expired = new AtomicBoolean();
    ScheduledFuture<?> watchdog =
        Watchdog.INSTANCE.schedule(
            () -> {
              expired.set(true);
              closeQuietly(channel);
            },
            timeoutNanos,
            TimeUnit.NANOSECONDS);
    try {
      channel.connect(address);
      return ProbeResult.Status.REACHABLE;
    } catch (ClosedByInterruptException e) {
      throw e; // our caller was interrupted: an error, not a slow endpoint
    } catch (AsynchronousCloseException e) {
      if (expired.get()) {
        return ProbeResult.Status.TIMED_OUT;
      }
      throw e;
    } catch (ConnectException e) {
      return ProbeResult.Status.REFUSED;
    } catch (IOException e) {
      if (endpoint instanceof Endpoint.UnixSocket unix && !Files.exists(unix.path())) {
        return ProbeResult.Status.NOT_FOUND; // removed between the check and the connect
      }
      throw e;
    } finally {
      watchdog.cancel(false);
      closeQuietly(channel);
    }
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // Closing a probe connection has nothing left to report.
    }
  }

  /** One daemon thread for every probe: a pending probe never keeps the JVM alive. */
  private static final class Watchdog {
    static final ScheduledThreadPoolExecutor INSTANCE = create();

    private static ScheduledThreadPoolExecutor create() {
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(1, Threads.daemons("lifecycle-probe-watchdog"));
      executor.setRemoveOnCancelPolicy(true);
      return executor;
    }
  }
}
