package dev.lifecycle.probe;

import dev.lifecycle.internal.BoundedConnect;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Objects;

/**
 * Connects to an endpoint and closes the connection at once, within a bound. Thread-safe (static
 * methods only).
 *
 * <p>The bound holds also against a listener whose backlog is full, which would hold a plain
 * connect for minutes (TCP) or forever (a Unix domain socket): the connect blocks and a shared
 * watchdog closes it at the bound. A Unix domain socket is tried without blocking first, since the
 * kernel then answers at once; only a full backlog takes the blocking way.
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
    long start = System.nanoTime();
    ProbeResult.Status status;
    IOException error = null;
    try {
      status = connect(endpoint, timeout);
    } catch (IOException e) {
      status = ProbeResult.Status.ERROR;
      error = e;
    }
    return new ProbeResult(endpoint, status, Duration.ofNanos(System.nanoTime() - start), error);
  }

  private static ProbeResult.Status connect(Endpoint endpoint, Duration timeout)
      throws IOException {
    SocketAddress address;
    if (endpoint instanceof Endpoint.UnixSocket unix) {
      if (!Files.exists(unix.path())) {
        return ProbeResult.Status.NOT_FOUND;
      }
      address = UnixDomainSocketAddress.of(unix.path());
    } else {
      Endpoint.Tcp tcp = (Endpoint.Tcp) endpoint;
      InetSocketAddress inet = new InetSocketAddress(tcp.host(), tcp.port());
      if (inet.isUnresolved()) {
        throw new UnknownHostException(tcp.host());
      }
      address = inet;
    }
    try {
      BoundedConnect.connect(address, timeout).close();
      return ProbeResult.Status.REACHABLE;
    } catch (ClosedByInterruptException e) {
      throw e; // our caller was interrupted: an error, not a slow endpoint
    } catch (SocketTimeoutException e) {
      return ProbeResult.Status.TIMED_OUT;
    } catch (ConnectException e) {
      return ProbeResult.Status.REFUSED;
    } catch (IOException e) {
      if (endpoint instanceof Endpoint.UnixSocket unix && !Files.exists(unix.path())) {
        return ProbeResult.Status.NOT_FOUND; // removed between the check and the connect
      }
      throw e;
    }
  }
}
