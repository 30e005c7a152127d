package dev.lifecycle.broker;

import dev.lifecycle.internal.Threads;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection of a broker: a reader thread that frames request lines ({@link Wire}),
 * hands each to the handler under its own idle lease, and serialized reply writes.
 */
final class Connection {
  private static final Logger LOG = LoggerFactory.getLogger(Connection.class);

  /** What a connection needs from its broker. */
  interface Host {
    String name();

    RequestHandler handler();

    BrokerRuntime runtime();

    /** False once the broker shuts down or lost a backend: nothing more is dispatched or sent. */
    boolean answering();

    /** An idle lease for one request in flight. */
    AutoCloseable acquireLease();

    /** The connection closed (its own lease is released by the connection). */
    void closed(Connection connection);
  }

  private final SocketChannel channel;
  private final AutoCloseable lease;
  private final Host host;
  private final AtomicBoolean open = new AtomicBoolean(true);

  Connection(SocketChannel channel, AutoCloseable lease, Host host) {
    this.channel = channel;
    this.lease = lease;
    this.host = host;
  }

  /** Writes the greeting; false when the client already left (e.g. a probe). */
  boolean greet() {
    return write(Wire.frame(Wire.GREETING));
  }

  /** Starts the reader thread. */
  void start() {
    Threads.startDaemon("lifecycle-broker-connection", this::readLoop);
  }

  private void readLoop() {
    ByteBuffer buffer = ByteBuffer.allocate(8192);
    Wire.Lines lines = new Wire.Lines();
    try {
      while (channel.read(buffer) >= 0) {
        buffer.flip();
        for (String line = lines.next(buffer); line != null; line = lines.next(buffer)) {
          dispatch(line);
        }
        buffer.clear();
      }
    } catch (IOException e) {
      LOG.debug("broker {}: connection ended: {}", host.name(), e.toString());
    } finally {
      close(); // the connection lease ends here; requests in flight keep their own
    }
  }

  private void dispatch(String line) {
    if (!host.answering()) {
      close();
      return;
    }
    AutoCloseable inFlight = host.acquireLease();
    BrokerRequest request = new BrokerRequest(line, host.runtime(), open::get);
    CompletionStage<String> reply;
    try {
      reply = host.handler().handle(request);
    } catch (Exception | LinkageError e) {
      LOG.warn("broker {}: handler failed on {}", host.name(), line, e);
      finish(request, inFlight);
      return;
    }
    if (reply == null) {
      finish(request, inFlight);
      return;
    }
    reply.whenComplete(
        (response, failure) -> {
          try {
            if (failure != null) {
              LOG.warn("broker {}: request {} failed", host.name(), line, failure);
            } else if (response != null && host.answering()) {
              send(response);
            } else if (response != null) {
              close(); // the broker stops: its answer is not vouched for
            }
          } finally {
            finish(request, inFlight);
          }
        });
  }

  /** After the reply (or its absence): the hooks, then the lease, so idle counts from here. */
  private void finish(BrokerRequest request, AutoCloseable inFlight) {
    try {
      request.runAfterReply();
    } finally {
      closeQuietly(inFlight);
    }
  }

  private void send(String response) {
    ByteBuffer bytes;
    try {
      bytes = Wire.frame(response);
    } catch (IllegalArgumentException e) {
      LOG.warn("broker {}: reply not sent: {}", host.name(), e.getMessage());
      return;
    }
    if (!write(bytes)) {
      close();
    }
  }

  private boolean write(ByteBuffer bytes) {
    synchronized (this) {
      if (!open.get()) {
        return false; // the client left: the work is done, the reply has nobody to go to
      }
      try {
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
        return true;
      } catch (IOException e) {
        LOG.debug("broker {}: write not delivered: {}", host.name(), e.toString());
        return false;
      }
    }
  }

  /** Closes the connection and releases its lease. Idempotent. */
  void close() {
    if (open.compareAndSet(true, false)) {
      closeChannel();
      host.closed(this);
      closeQuietly(lease);
    }
  }

  /**
   * Closes a connection refused during shutdown without telling the host (caller holds its lock).
   */
  void refuse() {
    if (open.compareAndSet(true, false)) {
      closeChannel();
      closeQuietly(lease);
    }
  }

  private void closeChannel() {
    try {
      channel.close();
    } catch (IOException e) {
      LOG.debug("broker {}: closing a connection: {}", host.name(), e.toString());
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      LOG.debug("closing a lease: {}", e.toString());
    }
  }
}
