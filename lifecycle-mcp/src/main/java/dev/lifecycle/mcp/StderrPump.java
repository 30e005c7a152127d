package dev.lifecycle.mcp;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the server's stderr on a thread of its own, so a chatty server never blocks on a full pipe:
 * each line goes to the {@link StderrTail} and to the handler in effect when it arrives.
 */
record StderrPump(
    InputStream stderr,
    int maxLineBytes,
    StderrTail tail,
    Supplier<Consumer<String>> handler,
    long pid)
    implements Runnable {
  // Under the transport's name, where users configure its logging.
  private static final Logger LOG = LoggerFactory.getLogger(SupervisedStdioClientTransport.class);

  @Override
  public void run() {
    LineReader lines = new LineReader(stderr, maxLineBytes);
    try {
      for (Optional<String> line = lines.next(); line.isPresent(); line = lines.next()) {
        tail.add(line.get());
        try {
          handler.get().accept(line.get());
        } catch (RuntimeException e) {
          LOG.warn("the stderr handler of MCP server {} failed", pid, e);
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("reading the stderr of MCP server {} ended", pid, e);
    }
  }
}
