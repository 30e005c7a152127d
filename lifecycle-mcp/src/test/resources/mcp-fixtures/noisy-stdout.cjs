// Preload: after answering `initialize`, the MCP server prints a stray non-JSON line to stdout (a
// debug print a dependency left in), then carries on normally.
if (/mcp-server-everything$/.test(process.argv[1] || "")) {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    const result = write(chunk, ...rest);
    if (String(chunk).includes('"protocolVersion"')) {
      write("debug: connected, not JSON-RPC\n");
    }
    return result;
  };
}
