package dev.lifecycle.mcp;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpClientTransport;
import java.time.Duration;

/**
 * A client JVM for the SIGKILL case: connects to a tagged server with the transport named by {@code
 * args[0]} ({@code LIFECYCLE} or {@code SDK}), initializes, prints {@code READY <tether sidecar pid
 * or 0>} and then waits on stdin until it is killed.
 */
public final class ClientMain {
  private ClientMain() {}

  public static void main(String[] args) throws Exception {
    String kind = args[0];
    ServerParameters params = McpServers.everything(args[1], McpServers.Fixture.valueOf(args[2]));
    McpClientTransport transport;
    long sidecar = 0;
    if (kind.equals("LIFECYCLE")) {
      transport = new SupervisedStdioClientTransport(params, McpJsonDefaults.getMapper());
      sidecar = dev.lifecycle.tether.Tether.shared().sidecar().pid();
    } else {
      transport = new StdioClientTransport(params, McpJsonDefaults.getMapper());
    }
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(60))
            .initializationTimeout(Duration.ofSeconds(60))
            .build();
    client.initialize();
    System.out.println("READY " + sidecar);
    System.out.flush();
    System.in.read(); // until killed
  }
}
