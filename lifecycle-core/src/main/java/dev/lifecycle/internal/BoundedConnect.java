package dev.lifecycle.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Connects a socket channel within a bound, for probes and broker connections alike. Stateless and
 * thread-safe.
 *
 * <p>A connect can hang two ways: a TCP listener whose accept queue is full drops the SYN (the
 * client retransmits for minutes), and a Unix domain socket connect to a full backlog blocks in the
 * kernel. Both are bounded by one mechanism: a blocking connect that a shared watchdog thread
 * closes when the bound expires. A Unix domain socket is first tried without blocking, because the
 * kernel then answers at once (connected, refused, or EAGAIN for a full backlog): the common case
 * needs no watchdog, and a JVM that only connects never starts its thread.
 */
public final class BoundedConnect {
  private BoundedConnect() {}

  /**
   * Connects to {@code address} within {@code timeout}.
   *
   * @param address a {@link UnixDomainSocketAddress} or an {@link java.net.InetSocketAddress}
   * @param timeout the longest the connect may take, positive
   * @return the connected channel, in blocking mode; the caller closes it
   * @throws ConnectException when nothing listens there
   * @throws SocketTimeoutException when the connect did not complete within {@code timeout}
   * @throws ClosedByInterruptException when the calling thread was interrupted (its status stays
   *     set)
   * @throws IOException on any other failure (e.g. no such socket file)
   */
  public static SocketChannel connect(SocketAddress address, Duration timeout) throws IOException {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("connect timeout must be positive: " + timeout);
    }
    if (address instanceof UnixDomainSocketAddress) {
      SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
      try {
        channel.configureBlocking(false);
        if (channel.connect(address)) {
          channel.configureBlocking(true);
          return channel;
        }
      } catch (ConnectException e) {
        channel.close();
        throw e;
      } catch (IOException e) {
        // EAGAIN (a full backlog) or anything else: the blocking connect below decides, bounded.
      }
      channel.close();
    }
    return blocking(address, Durations.saturatedNanos(timeout));
  }

  private static SocketChannel blocking(SocketAddress address, long timeoutNanos)
      throws IOException {
    SocketChannel channel =
        address instanceof UnixDomainSocketAddress
            ? SocketChannel.open(StandardProtocolFamily.UNIX)
            : SocketChannel.open();
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
    } catch (ClosedByInterruptException e) {
      throw e; // the caller was interrupted: not a slow endpoint
    } catch (AsynchronousCloseException e) {
      throw expired.get() ? timedOut(address, timeoutNanos) : e;
    } catch (IOException | RuntimeException e) {
      closeQuietly(channel);
      throw e;
    } finally {
      watchdog.cancel(false);
    }
    if (expired.get()) { // fired between the connect and the cancel: the channel is closed
      throw timedOut(address, timeoutNanos);
    }
    return channel;
  }

  private static SocketTimeoutException timedOut(SocketAddress address, long timeoutNanos) {
    return new SocketTimeoutException(
        "connect to " + address + " took longer than " + Duration.ofNanos(timeoutNanos));
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // A channel given up on has nothing left to report.
    }
  }

  /** One daemon thread for every bounded connect: a pending one never keeps the JVM alive. */
  private static final class Watchdog {
    static final ScheduledThreadPoolExecutor INSTANCE = create();

    private static ScheduledThreadPoolExecutor create() {
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(1, Threads.daemons("lifecycle-connect-watchdog"));
      executor.setRemoveOnCancelPolicy(true);
      return executor;
    }
  }
}
