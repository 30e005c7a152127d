package mcpdemo;

import dev.lifecycle.mcp.StdioShutdownReport;
import dev.lifecycle.mcp.SupervisedStdioClientTransport;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.tree.TreeMember;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An MCP session with server-everything through npx and lifecycle's transport: initialize, list the
 * tools, call echo, close gracefully. Prints what the test checks, one fact per line.
 *
 * <p>Arguments: the folder the pinned server is installed in, the environment tag its processes
 * carry, the text to echo.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    String cache = args[0];
    String tag = args[1];
    String message = args[2];
    System.out.println("mcp module: " + name(SupervisedStdioClientTransport.class.getModule()));
    System.out.println("sdk module: " + name(McpClient.class.getModule()));
    McpJsonMapper mapper = McpJsonDefaults.getMapper();
    System.out.println("json mapper module: " + name(mapper.getClass().getModule()));

    ServerParameters params =
        ServerParameters.builder("npx")
            .args(List.of("--prefix", cache, "--no-install", "mcp-server-everything"))
            .addEnvVar("LIFECYCLE_MCP_TEST_TAG", tag)
            .build();
    SupervisedStdioClientTransport transport = new SupervisedStdioClientTransport(params, mapper);
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(60))
            .initializationTimeout(Duration.ofSeconds(60))
            .build();
    try {
      client.initialize();
      // Printed as soon as the server answered, so the test can check them even if a step fails.
      for (TreeMember member : transport.processTree().orElseThrow().members()) {
        print("member", member.identity());
      }
      print("sidecar", Tether.sharedSidecar().orElseThrow());
      System.out.println("tools: " + client.listTools().tools().size());
      McpSchema.CallToolResult echo =
          client.callTool(new McpSchema.CallToolRequest("echo", Map.of("message", message)));
      System.out.println("echo: " + ((McpSchema.TextContent) echo.content().get(0)).text());
    } finally {
      System.out.println("closed: " + client.closeGracefully());
    }
    StdioShutdownReport report = transport.shutdown().get(30, TimeUnit.SECONDS);
    System.out.println("reason: " + report.reason());
    System.out.println("ended by: " + report.endedBy());
    System.out.println("complete: " + report.isComplete());
    System.out.println("no survivor seen: " + report.noSurvivorSeen());
  }

  private static String name(Module module) {
    return module.isNamed() ? module.getName() : "unnamed";
  }

  private static void print(String what, ProcessIdentity identity) {
    System.out.println(what + ": " + identity.pid() + " " + identity.startTime());
  }
}
