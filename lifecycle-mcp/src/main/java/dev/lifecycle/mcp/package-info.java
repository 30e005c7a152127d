/**
 * The official MCP Java SDK's stdio servers as supervised process trees.
 *
 * <p>{@link dev.lifecycle.mcp.SupervisedStdioClientTransport} is an {@code McpClientTransport} that
 * takes the SDK's own {@code ServerParameters} and is a drop-in for {@code McpClient.sync(...)} and
 * {@code McpClient.async(...)}. Its server runs as a {@link dev.lifecycle.tree.ProcessTree} bound
 * to the {@link dev.lifecycle.tether.Tether}, so {@code npx}/{@code uvx} wrappers and everything
 * they start are ended together: by the MCP stdio shutdown ladder applied to the whole tree ({@link
 * dev.lifecycle.mcp.ShutdownLadder}), by the optional per-server limits ({@link
 * dev.lifecycle.mcp.ServerLimits}), or, when this JVM dies, by the tether.
 */
package dev.lifecycle.mcp;
