package dev.lifecycle.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.probe.Endpoint;
import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection the kernel queued just before a broker closed its listener is closed without the
 * greeting: the client must read that as "refused" (start over), never wait for a reply.
 */
class GreetingTest {
  @TempDir Path dir;

  /** A listener that accepts one connection and answers it with {@code answer} (null: close). */
  private CompletableFuture<Void> serveOnce(ServerSocketChannel server, String answer) {
    return CompletableFuture.runAsync(
        () -> {
          try (SocketChannel accepted = server.accept()) {
            if (answer != null) {
              accepted.write(ByteBuffer.wrap(answer.getBytes(StandardCharsets.UTF_8)));
            }
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private ServerSocketChannel listen(Path socket) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    return server;
  }

  @Test
  void aConnectionClosedWithoutGreetingIsRefused() throws Exception {
    Path socket = dir.resolve("b.sock");
    try (ServerSocketChannel server = listen(socket)) {
      CompletableFuture<Void> served = serveOnce(server, null);
      assertThatThrownBy(() -> BrokerConnection.open(Endpoint.unix(socket)))
          .isInstanceOf(ConnectException.class)
          .hasMessageContaining("shutting down");
      served.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aGreetingIsConsumedAndAForeignServerIsNamed() throws Exception {
    Path socket = dir.resolve("b.sock");
    try (ServerSocketChannel server = listen(socket)) {
      CompletableFuture<Void> served = serveOnce(server, BrokerRuntime.GREETING + "\n");
      try (BrokerConnection connection = BrokerConnection.open(Endpoint.unix(socket))) {
        assertThat(connection.isClosed()).isFalse();
      }
      served.get(10, TimeUnit.SECONDS);
      served = serveOnce(server, "HTTP/1.1 400 Bad\n");
      assertThatThrownBy(() -> BrokerConnection.open(Endpoint.unix(socket)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("not a lifecycle broker");
      served.get(10, TimeUnit.SECONDS);
    }
  }
}
