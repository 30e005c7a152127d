package dev.lifecycle.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the server's stdout on a thread of its own: each line is a JSON-RPC message for the client.
 * Tracks what is in flight, ends the startup limit on a successful {@code initialize} answer, and
 * stops the server when its stdout ends, breaks, floods, or opens with something that is not
 * JSON-RPC.
 */
final class StdoutReader implements Runnable {
  // Under the transport's name, where users configure its logging.
  private static final Logger LOG = LoggerFactory.getLogger(SupervisedStdioClientTransport.class);
  private static final int EXCERPT = 200;

  private final Running running;
  private final McpJsonMapper mapper;
  private final int maxLineBytes;
  private boolean sawMessage; // only the reader thread

  StdoutReader(Running running, McpJsonMapper mapper, int maxLineBytes) {
    this.running = running;
    this.mapper = mapper;
    this.maxLineBytes = maxLineBytes;
  }

  @Override
  public void run() {
    LineReader lines = new LineReader(running.tree.leader().getInputStream(), maxLineBytes);
    Supervisor supervisor = running.supervisor;
    try {
      for (Optional<String> line = lines.next(); line.isPresent(); line = lines.next()) {
        onLine(line.get());
      }
      supervisor.stop(ShutdownReason.SERVER_EXITED, "the server closed its stdout", null);
    } catch (LineReader.LineTooLongException e) {
      supervisor.stop(ShutdownReason.PROTOCOL_ERROR, e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      supervisor.stop(ShutdownReason.SERVER_EXITED, "reading the server's stdout failed: " + e, e);
    }
  }

  private void onLine(String line) {
    if (line.isBlank()) {
      return;
    }
    JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(mapper, line);
    } catch (IOException | RuntimeException e) {
      if (!sawMessage) {
        running.supervisor.stop(
            ShutdownReason.CONNECT_FAILED,
            "the server's first message is not JSON-RPC: " + excerpt(line),
            e);
      } else {
        LOG.warn(
            "MCP server {}: skipping a line that is not JSON-RPC: {}",
            running.pid(),
            excerpt(line));
      }
      return;
    }
    sawMessage = true;
    boolean initializeAnswer = false;
    if (message instanceof JSONRPCResponse response) {
      running.inFlight.answered(response.id());
      initializeAnswer = running.inFlight.isInitialize(response.id());
    } else if (message instanceof JSONRPCRequest request) {
      running.inFlight.received(request.id());
    }
    if (running.supervisor.isRunning()) {
      running.deliver(message);
    }
    if (initializeAnswer) {
      initialized((JSONRPCResponse) message);
    }
  }

  private void initialized(JSONRPCResponse response) {
    if (response.error() == null) {
      running.startupGuard.cancel();
      running.startupLease.close();
    } else {
      running.supervisor.stop(
          ShutdownReason.CONNECT_FAILED,
          "initialize failed: " + response.error().code() + " " + response.error().message(),
          null);
    }
  }

  private static String excerpt(String line) {
    return line.length() <= EXCERPT ? line : line.substring(0, EXCERPT) + "...";
  }
}
