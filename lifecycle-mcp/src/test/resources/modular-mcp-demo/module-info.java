// A user's MCP client module: it names only lifecycle-mcp, whose API brings the SDK with it.
module mcpdemo {
  requires dev.lifecycle.mcp;
}
