/**
 * lifecycle for the MCP Java SDK: a stdio client transport whose server runs as a process tree
 * bound to the tether and is ended by the MCP stdio shutdown ladder, applied to the whole tree. The
 * SDK and Reactor are this module's dependencies only, never lifecycle-core's.
 */
module dev.lifecycle.mcp {
  requires transitive dev.lifecycle.core;
  requires transitive io.modelcontextprotocol.sdk.mcp.core;
  requires transitive reactor.core; // the transport API speaks Mono
  requires org.slf4j;

  exports dev.lifecycle.mcp;
}
