// Preload: the MCP server hangs before it reads its stdin (a stuck start-up), blocked, not spinning.
if (/mcp-server-everything$/.test(process.argv[1] || "")) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120000);
}
