/**
 * lifecycle for the MCP Java SDK: a stdio client transport whose server runs as a process tree
 * bound to the tether and is ended by the MCP stdio shutdown ladder, applied to the whole tree. The
 * SDK and Reactor are this module's dependencies only, never lifecycle-core's.
 *
 * <p>On the module path the SDK loads its JSON binding with a {@code ServiceLoader} inside
 * automatic modules, which resolve nothing themselves: make the SDK's bundle module {@code
 * io.modelcontextprotocol.sdk.mcp} a root ({@code requires} it, or {@code --add-modules} it), or
 * its Jackson 3 binding cannot load.
 */
module dev.lifecycle.mcp {
  requires transitive dev.lifecycle.core;
  requires transitive io.modelcontextprotocol.sdk.mcp.core;
  requires transitive reactor.core; // the transport API speaks Mono
  requires org.slf4j;

  exports dev.lifecycle.mcp;
}
