package dev.lifecycle.broker;

import dev.lifecycle.internal.BoundedConnect;
import dev.lifecycle.internal.Durations;
import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.time.Limit;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One connection to a serving broker: line-delimited requests and replies, every wait bounded. One
 * caller at a time; {@link #close()} from any thread.
 *
 * <p>{@link #open} connects and reads the broker's greeting; a connection that a shutting-down
 * broker closes without one fails like a refused connect ({@link ConnectException}), so callers
 * start over instead of waiting for a reply that never comes. {@link #call} sends one line and
 * waits for one reply line; a call that times out closes the connection (a late reply would be
 * taken for the next one's).
 *
 * <p>Not thread-safe for calls: one caller at a time. {@link #close()} may be called from any
 * thread and ends a call blocked in another one with an {@link AsynchronousCloseException}.
 */
public final class BrokerConnection implements AutoCloseable {
  /** A live broker accepts and greets at once; this only bounds a wedged one. */
  static final Duration GREETING_TIMEOUT = Duration.ofSeconds(10);

  private final Endpoint endpoint;
  private final SocketChannel channel;
  private final Selector selector;
  private final SelectionKey key;
  private final ByteBuffer in = ByteBuffer.allocate(8192).flip();
  private final Wire.Lines lines = new Wire.Lines();
  private volatile boolean closed;

  private BrokerConnection(Endpoint endpoint, SocketChannel channel, Selector selector)
      throws IOException {
    this.endpoint = endpoint;
    this.channel = channel;
    this.selector = selector;
    channel.configureBlocking(false);
    this.key = channel.register(selector, SelectionKey.OP_READ);
  }

  /**
   * Connects to the broker at {@code endpoint} and consumes its greeting within {@link
   * #GREETING_TIMEOUT}.
   *
   * @param endpoint the broker's Unix socket or TCP endpoint
   * @return an open connection past the greeting
   * @throws ConnectException when nothing listens there, or the broker closed the connection
   *     without greeting (it is shutting down)
   * @throws SocketTimeoutException when it accepted no connection (a full backlog) or sent no
   *     greeting in time (stopped, wedged)
   * @throws IOException when something else answers, or on any other failure
   */
  public static BrokerConnection open(Endpoint endpoint) throws IOException {
    Objects.requireNonNull(endpoint, "endpoint");
    SocketChannel channel;
    try {
      channel = BoundedConnect.connect(address(endpoint), GREETING_TIMEOUT);
    } catch (SocketTimeoutException e) {
      throw new SocketTimeoutException(
          "the broker at "
              + endpoint
              + " accepts no connection within "
              + GREETING_TIMEOUT
              + ": its backlog is full (stopped or wedged)");
    }
    Selector selector = null;
    try {
      selector = Selector.open();
      BrokerConnection connection = new BrokerConnection(endpoint, channel, selector);
      String greeting;
      try {
        greeting = connection.receive(GREETING_TIMEOUT);
      } catch (SocketTimeoutException e) {
        throw new SocketTimeoutException(
            "no greeting from the broker at "
                + endpoint
                + " within "
                + GREETING_TIMEOUT
                + ": it accepts but does not answer (stopped or wedged)");
      } catch (Closed e) {
        throw new ConnectException(
            "the broker at " + endpoint + " closed the connection: it is shutting down");
      }
      if (!Wire.GREETING.equals(greeting)) {
        throw new IOException("not a lifecycle broker at " + endpoint);
      }
      return connection;
    } catch (IOException | RuntimeException e) {
      channel.close();
      if (selector != null) {
        selector.close();
      }
      throw e;
    }
  }

  private static SocketAddress address(Endpoint endpoint) {
    if (endpoint instanceof Endpoint.UnixSocket unix) {
      return UnixDomainSocketAddress.of(unix.path());
    }
    Endpoint.Tcp tcp = (Endpoint.Tcp) endpoint;
    return new InetSocketAddress(tcp.host(), tcp.port());
  }

  /**
   * Where this connection goes.
   *
   * @return the endpoint given to {@link #open(Endpoint)}
   */
  public Endpoint endpoint() {
    return endpoint;
  }

  /**
   * Sends {@code line} and returns the next reply line, waiting at most {@code timeout}.
   *
   * @param line one request line, without a line break
   * @param timeout the longest to wait for the send and the reply together
   * @return the reply line, without its line break
   * @throws SocketTimeoutException when no reply came in time (the connection is then closed)
   * @throws IOException when the broker hung up or the connection failed
   * @throws IllegalArgumentException when {@code line} contains a line break
   */
  public String call(String line, Duration timeout) throws IOException {
    long deadline = deadline(timeout);
    send(line, deadline);
    return receive(deadline);
  }

  /**
   * {@link #call(String, Duration)}; a disabled limit waits as long as the connection lives.
   *
   * @param line one request line, without a line break
   * @param timeout the longest to wait for the send and the reply together
   * @return the reply line, without its line break
   * @throws IOException as {@link #call(String, Duration)}
   */
  public String call(String line, Limit timeout) throws IOException {
    return call(line, timeout.isEnabled() ? timeout.duration() : Limit.MAX);
  }

  /**
   * Sends one line without waiting for a reply (within {@code timeout} for a full socket).
   *
   * @param line one line, without a line break
   * @param timeout the longest to wait for room in the socket
   * @throws IOException when the line could not be written in time or the connection failed
   */
  public void send(String line, Duration timeout) throws IOException {
    send(line, deadline(timeout));
  }

  /**
   * Waits at most {@code timeout} for the next line from the broker.
   *
   * @param timeout the longest to wait
   * @return the line, without its line break
   * @throws IOException when no line came in time, the broker hung up or the connection failed
   */
  public String receive(Duration timeout) throws IOException {
    return receive(deadline(timeout));
  }

  private static long deadline(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    return System.nanoTime() + Durations.saturatedNanos(timeout);
  }

  private void send(String line, long deadline) throws IOException {
    ByteBuffer out = Wire.frame(line);
    try {
      while (out.hasRemaining()) {
        checkOpen();
        if (channel.write(out) == 0) {
          await(SelectionKey.OP_WRITE, deadline);
        }
      }
    } catch (IOException e) {
      throw closedIfClosed(e);
    }
  }

  private String receive(long deadline) throws IOException {
    try {
      while (true) {
        String line = lines.next(in);
        if (line != null) {
          return line;
        }
        checkOpen();
        in.clear();
        int n = channel.read(in);
        in.flip();
        if (n < 0) {
          throw new Closed(
              "the broker at "
                  + endpoint
                  + " closed the connection"
                  + (lines.partial().isEmpty() ? "" : " within a line: " + lines.partial()));
        }
        if (n == 0) {
          await(SelectionKey.OP_READ, deadline);
        }
      }
    } catch (IOException e) {
      throw closedIfClosed(e);
    }
  }

  private void await(int op, long deadline) throws IOException {
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      close();
      throw new SocketTimeoutException(
          "no reply from the broker at " + endpoint + " in time; connection closed");
    }
    try {
      key.interestOps(op);
      selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      selector.selectedKeys().clear();
    } catch (CancelledKeyException | ClosedSelectorException e) {
      checkOpen();
      throw e;
    }
  }

  private void checkOpen() throws AsynchronousCloseException {
    if (closed) {
      throw new AsynchronousCloseException();
    }
  }

  private IOException closedIfClosed(IOException e) {
    if (closed && !(e instanceof SocketTimeoutException)) {
      AsynchronousCloseException ace = new AsynchronousCloseException();
      ace.initCause(e);
      return ace;
    }
    return e;
  }

  /** The channel in blocking mode, past the greeting, for the deprecated raw-channel API. */
  SocketChannel detach() throws IOException {
    try {
      if (in.hasRemaining()) {
        throw new IOException("the broker at " + endpoint + " sent data before any request");
      }
      selector.close(); // deregisters the channel
      channel.configureBlocking(true);
      return channel;
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Whether {@link #close()} has been called (or a timeout closed the connection).
   *
   * @return {@code true} once closed; a closed connection cannot be used again
   */
  public boolean isClosed() {
    return closed;
  }

  /** Closes the connection; a call blocked in another thread ends at once. Idempotent. */
  @Override
  public void close() {
    closed = true;
    selector.wakeup();
    try {
      channel.close();
    } catch (IOException ignored) {
      // Nothing left to tell the broker.
    }
    try {
      selector.close();
    } catch (IOException | RuntimeException ignored) {
      // A selector in use by a blocked call is closed by that call's wake-up.
    }
  }

  @Override
  public String toString() {
    return "BrokerConnection[" + endpoint + (closed ? ", closed" : "") + "]";
  }

  /** The broker ended the connection. */
  private static final class Closed extends IOException {
    private static final long serialVersionUID = 1L;

    Closed(String message) {
      super(message);
    }
  }
}
