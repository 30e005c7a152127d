// Preload: the MCP server ignores SIGTERM and keeps running after stdin EOF; only SIGKILL ends it.
if (/mcp-server-everything$/.test(process.argv[1] || "")) {
  setInterval(() => {}, 1 << 30);
  process.on("SIGTERM", () => {});
}
