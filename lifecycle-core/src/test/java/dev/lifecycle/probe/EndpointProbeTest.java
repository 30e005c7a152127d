package dev.lifecycle.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.probe.ProbeResult.Status;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real listeners on this machine only: loopback TCP and Unix domain sockets in a temp dir. */
class EndpointProbeTest {
  private static final Duration TIMEOUT = Duration.ofMillis(200);

  /** Scheduling slack on a shared 2-core machine; a hang would take minutes (SYN retries). */
  private static final Duration SLACK = Duration.ofSeconds(2);

  @TempDir Path dir;

  @Test
  void reachesAListeningUnixSocket() throws IOException {
    Path path = dir.resolve("s.sock");
    try (ServerSocketChannel server = unixServer(path, 50)) {
      assertThat(EndpointProbe.probe(Endpoint.unix(path)).status()).isEqualTo(Status.REACHABLE);
    }
  }

  @Test
  void reachesAListeningTcpPort() throws IOException {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      ProbeResult result = EndpointProbe.probe(tcp(server.getLocalPort()));
      assertThat(result.status()).isEqualTo(Status.REACHABLE);
      assertThat(result.failure()).isEmpty();
    }
  }

  @Test
  void socketFileWithoutListenerIsRefused() throws IOException {
    Path path = dir.resolve("stale.sock");
    unixServer(path, 1).close(); // closing a bound channel leaves the file behind
    assertThat(path).exists();
    assertThat(EndpointProbe.probe(Endpoint.unix(path)).status()).isEqualTo(Status.REFUSED);
  }

  @Test
  void closedTcpPortIsRefused() throws IOException {
    int port;
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = server.getLocalPort();
    }
    assertThat(EndpointProbe.probe(tcp(port)).status()).isEqualTo(Status.REFUSED);
  }

  @Test
  void missingSocketFileIsNotFound() {
    assertThat(EndpointProbe.probe(Endpoint.unix(dir.resolve("absent.sock"))).status())
        .isEqualTo(Status.NOT_FOUND);
  }

  @Test
  void unixListenerWithFullBacklogTimesOutWithinTheBound() throws IOException {
    Path path = dir.resolve("busy.sock");
    try (ServerSocketChannel server = unixServer(path, 1)) {
      assertTimesOutOnceBacklogFills(Endpoint.unix(path));
    }
  }

  @Test
  void tcpListenerWithFullBacklogTimesOutWithinTheBound() throws IOException {
    // Never accepts: the kernel queues backlog + 1 connections, then drops further SYNs.
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertTimesOutOnceBacklogFills(tcp(server.getLocalPort()));
    }
  }

  /** Each reachable probe leaves one queued connection behind, so the queue fills. */
  private static void assertTimesOutOnceBacklogFills(Endpoint endpoint) {
    ProbeResult result = null;
    for (int i = 0; i < 16; i++) {
      result = EndpointProbe.probe(endpoint, TIMEOUT);
      if (result.status() != Status.REACHABLE) {
        break;
      }
    }
    assertThat(result.status()).isEqualTo(Status.TIMED_OUT);
    assertThat(result.elapsed()).isGreaterThanOrEqualTo(TIMEOUT).isLessThan(TIMEOUT.plus(SLACK));
  }

  @Test
  void interruptEndsAProbeAsErrorAndStaysSet() throws IOException {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Endpoint endpoint = tcp(server.getLocalPort());
      while (EndpointProbe.probe(endpoint, TIMEOUT).isReachable()) {
        // fill the queue
      }
      Thread.currentThread().interrupt();
      try {
        ProbeResult result = EndpointProbe.probe(endpoint, Duration.ofMinutes(5));
        assertThat(result.status()).isEqualTo(Status.ERROR);
        assertThat(result.elapsed()).isLessThan(SLACK);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
      } finally {
        Thread.interrupted();
      }
    }
  }

  @Test
  void nonPositiveTimeoutIsRejected() {
    Endpoint endpoint = Endpoint.unix(dir.resolve("x.sock"));
    assertThatThrownBy(() -> EndpointProbe.probe(endpoint, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EndpointProbe.probe(endpoint, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void hugeTimeoutIsClampedNotOverflowed() throws IOException {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      ProbeResult result =
          EndpointProbe.probe(tcp(server.getLocalPort()), Duration.ofSeconds(Long.MAX_VALUE));
      assertThat(result.status()).isEqualTo(Status.REACHABLE);
    }
  }

  @Test
  void textFormRoundTrips() {
    for (Endpoint e :
        new Endpoint[] {
          Endpoint.unix(Path.of("/run/a b/s.sock")),
          Endpoint.tcp("127.0.0.1", 8080),
          Endpoint.tcp("::1", 1),
          Endpoint.tcp("localhost", 65535)
        }) {
      assertThat(Endpoint.parse(e.toString())).isEqualTo(e);
    }
    assertThat(Endpoint.tcp("::1", 80).toString()).isEqualTo("tcp:[::1]:80");
  }

  @Test
  void badEndpointsAreRejected() {
    for (String text : new String[] {"unix:rel/s.sock", "tcp:host", "tcp:h:0", "tcp::80", "x:/a"}) {
      assertThatThrownBy(() -> Endpoint.parse(text))
          .as(text)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  private static Endpoint tcp(int port) {
    return Endpoint.tcp(InetAddress.getLoopbackAddress().getHostAddress(), port);
  }

  private static ServerSocketChannel unixServer(Path path, int backlog) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(path), backlog);
    assertThat(Files.exists(path)).isTrue();
    return server;
  }
}
