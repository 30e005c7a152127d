package dev.lifecycle.mcp;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The last lines a server wrote to stderr, kept so a failure can say why (npm's "404 Not Found", a
 * stack trace). Bounded in lines and characters per line. Thread-safe.
 */
final class StderrTail {
  static final int LINES = 20;
  static final int LINE_CHARS = 400;

  private final Deque<String> lines = new ArrayDeque<>();

  synchronized void add(String line) {
    if (lines.size() == LINES) {
      lines.removeFirst();
    }
    lines.addLast(line.length() > LINE_CHARS ? line.substring(0, LINE_CHARS) + "..." : line);
  }

  /** The tail as one string, lines joined by {@code " | "}; empty when nothing was written. */
  synchronized String text() {
    return String.join(" | ", lines);
  }
}
