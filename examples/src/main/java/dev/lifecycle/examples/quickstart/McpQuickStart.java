package dev.lifecycle.examples.quickstart;

import dev.lifecycle.mcp.SupervisedStdioClientTransport;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.json.McpJsonDefaults;
import java.util.List;

/** Lists an MCP server's tools. Its whole process chain ends with the client, or with this JVM. */
public final class McpQuickStart {
  public static void main(String[] args) {
    List<String> command = args.length > 0 ? List.of(args)
        : List.of("npx", "-y", "@modelcontextprotocol/server-everything");
    ServerParameters server = ServerParameters.builder(command.get(0))
        .args(command.subList(1, command.size())).build();
    var transport = new SupervisedStdioClientTransport(server, McpJsonDefaults.getMapper());
    var client = McpClient.sync(transport).build();
    try {
      client.initialize();
      client.listTools().tools().forEach(tool -> System.out.println(tool.name()));
    } finally {
      client.closeGracefully(); // stdin EOF, then SIGTERM, then SIGKILL: npx, sh and node alike
    }
  }
}
