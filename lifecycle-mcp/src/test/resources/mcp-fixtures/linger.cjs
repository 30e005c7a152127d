// Preload (NODE_OPTIONS=--require): the MCP server keeps running after its stdin reaches EOF, as a
// server with a timer, a socket or a child does. Only the server process; npm itself is untouched.
if (/mcp-server-everything$/.test(process.argv[1] || "")) {
  setInterval(() => {}, 1 << 30);
}
