// Preload: the MCP server answers `initialize` with a JSON-RPC error (as a server missing its API
// key would) and keeps running, waiting for its client.
if (/mcp-server-everything$/.test(process.argv[1] || "")) {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    try {
      const message = JSON.parse(String(chunk));
      if (message.result && message.result.protocolVersion) {
        const refusal = {
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32603, message: "fixture refused initialize: no API key" },
        };
        return write(JSON.stringify(refusal) + "\n", ...rest);
      }
    } catch (e) {
      // not one JSON message: pass through
    }
    return write(chunk, ...rest);
  };
}
