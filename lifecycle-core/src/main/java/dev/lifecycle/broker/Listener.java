package dev.lifecycle.broker;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.probe.Endpoint;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The broker's listening socket and its accept thread; closing it refuses new clients at once. */
final class Listener {
  private static final Logger LOG = LoggerFactory.getLogger(Listener.class);

  /** The socket file inside the generation directory. */
  static final String SOCKET_FILE = "broker.sock";

  /** A signalled accept() returns in microseconds; this only bounds a pathological case. */
  private static final Duration ACCEPTOR_EXIT = Duration.ofSeconds(1);

  private final String name;
  private final ServerSocketChannel channel;
  private final Endpoint endpoint;
  private final Path socketFile;
  private volatile Thread acceptor;

  private Listener(String name, ServerSocketChannel channel, Endpoint endpoint, Path socketFile) {
    this.name = name;
    this.channel = channel;
    this.endpoint = endpoint;
    this.socketFile = socketFile;
  }

  /** Binds a Unix domain socket inside {@code directory}. */
  static Listener unix(String name, Path directory) throws IOException {
    Path socket = directory.resolve(SOCKET_FILE);
    ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      channel.bind(UnixDomainSocketAddress.of(socket));
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    return new Listener(name, channel, Endpoint.unix(socket), socket);
  }

  /** Binds an ephemeral TCP port on loopback. */
  static Listener tcpLoopback(String name) throws IOException {
    ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.INET);
    try {
      InetAddress loopback = InetAddress.getLoopbackAddress();
      channel.bind(new InetSocketAddress(loopback, 0));
      int port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
      return new Listener(name, channel, Endpoint.tcp(loopback.getHostAddress(), port), null);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  Endpoint endpoint() {
    return endpoint;
  }

  /** The socket file, for Unix domain sockets. */
  Optional<Path> socketFile() {
    return Optional.ofNullable(socketFile);
  }

  /** Starts the accept thread; {@code accepted} runs on it for each connection. */
  void start(Consumer<SocketChannel> accepted) {
    Thread accepting = Threads.daemon("lifecycle-broker-accept", () -> acceptLoop(accepted));
    acceptor = accepting;
    accepting.start();
  }

  private void acceptLoop(Consumer<SocketChannel> accepted) {
    while (true) {
      SocketChannel connection;
      try {
        connection = channel.accept();
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
      accepted.accept(connection);
    }
  }

  /**
   * Closes the socket and waits for the accept thread to leave accept(): a thread blocked there
   * keeps the kernel socket listening until it returns, even after close() did.
   */
  void close() throws IOException {
    channel.close();
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

  private static void pause() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
