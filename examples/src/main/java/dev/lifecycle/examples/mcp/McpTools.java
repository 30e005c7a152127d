package dev.lifecycle.examples.mcp;

import dev.lifecycle.mcp.StdioShutdownReport;
import dev.lifecycle.mcp.SupervisedStdioClientTransport;
import dev.lifecycle.tether.Tether;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An MCP client CLI: starts a stdio MCP server, lists its tools through the official SDK, shuts the
 * server's whole process tree down and exits.
 *
 * <pre>
 * java ... dev.lifecycle.examples.mcp.McpTools npx -y @modelcontextprotocol/server-everything
 * </pre>
 *
 * <p>The only difference from the SDK's own example is the transport: {@code
 * SupervisedStdioClientTransport} instead of {@code StdioClientTransport}, with the same {@code
 * ServerParameters}. So the {@code npm exec -> sh -> node} chain {@code npx} builds is ended as a
 * whole (stdin EOF, then SIGTERM, then SIGKILL, each bounded), and it is ended by the tether if
 * this JVM is killed. The shutdown report goes to stderr. Exit codes: {@value #OK} tools listed,
 * {@value #FAILED} the server failed, {@value #USAGE} no command given.
 */
public final class McpTools {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;

  private McpTools() {}

  public static void main(String[] args) {
    System.exit(run(Arrays.asList(args)));
  }

  static int run(List<String> args) {
    if (args.isEmpty()) {
      System.err.println("usage: McpTools <server command> [args...]");
      return USAGE;
    }
    ServerParameters params =
        ServerParameters.builder(args.get(0)).args(args.subList(1, args.size())).build();
    SupervisedStdioClientTransport transport =
        new SupervisedStdioClientTransport(params, McpJsonDefaults.getMapper());
    transport.setStdErrorHandler(line -> {}); // quiet: failures carry the server's stderr tail
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(30))
            .initializationTimeout(Duration.ofSeconds(60))
            .build();
    int status = OK;
    try {
      McpSchema.InitializeResult server = client.initialize();
      System.out.println(
          server.serverInfo().name() + " " + server.serverInfo().version() + " offers:");
      for (McpSchema.Tool tool : client.listTools().tools()) {
        System.out.println("  " + tool.name() + " - " + firstLine(tool.description()));
      }
    } catch (RuntimeException e) {
      System.err.println("MCP server failed: " + rootMessage(e));
      status = FAILED;
    } finally {
      client.closeGracefully();
    }
    try {
      StdioShutdownReport report = transport.onShutdown().get(30, TimeUnit.SECONDS);
      System.err.println(report);
    } catch (Exception e) {
      System.err.println("no shutdown report: " + e);
      status = FAILED;
    }
    if (transport.processTree().isPresent()) {
      // The server's tree is gone: an orderly close lets the tether's sidecar leave without a
      // teardown (exiting without it counts as this JVM dying, which ends whatever is bound).
      Tether.shared().close();
    }
    return status;
  }

  private static String firstLine(String text) {
    if (text == null) {
      return "";
    }
    int newline = text.indexOf('\n');
    return newline < 0 ? text : text.substring(0, newline);
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return root.getMessage();
  }
}
