package dev.lifecycle.mcp;

/** Why a {@link SupervisedStdioClientTransport} shut its server down. */
public enum ShutdownReason {
  /** {@code closeGracefully()} or {@code close()}: the client asked. */
  CLOSED,
  /** The server's stdout reached end-of-file or its leader exited while the session was open. */
  SERVER_EXITED,
  /** {@code initialize} failed: an error answer, or a first message that is not JSON-RPC. */
  CONNECT_FAILED,
  /** The server sent a line longer than the transport accepts. */
  PROTOCOL_ERROR,
  /** {@link ServerLimits#startup()} passed before a successful {@code initialize}. */
  STARTUP_TIMEOUT,
  /** {@link ServerLimits#idle()} passed with no request in flight. */
  IDLE_TIMEOUT,
  /** {@link ServerLimits#wallClock()} passed. */
  WALL_CLOCK
}
