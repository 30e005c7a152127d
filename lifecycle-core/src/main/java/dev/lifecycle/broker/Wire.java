package dev.lifecycle.broker;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The broker's wire protocol, owned here and nowhere else: after connecting, the broker writes
 * {@link #GREETING} and a line break; then each request is one UTF-8 line ending in {@code \n} (a
 * trailing {@code \r} is dropped) and each reply one line. Lines longer than {@link
 * #MAX_LINE_BYTES} are a broken or hostile peer.
 */
final class Wire {
  /** The first line of every connection a serving broker accepts. */
  static final String GREETING = "lifecycle-broker";

  /** Longer lines are refused: the reader stops and the connection is closed. */
  static final int MAX_LINE_BYTES = 1 << 20;

  private Wire() {}

  /** {@code line} as bytes on the wire; a line may not contain a line break. */
  static ByteBuffer frame(String line) {
    if (line.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("a protocol line cannot contain a line break");
    }
    return ByteBuffer.wrap((line + "\n").getBytes(UTF_8));
  }

  /** A request or reply line over {@link #MAX_LINE_BYTES}. */
  static final class LineTooLong extends IOException {
    private static final long serialVersionUID = 1L;

    LineTooLong() {
      super("protocol line longer than " + MAX_LINE_BYTES + " bytes");
    }
  }

  /** Splits bytes into lines as they arrive. Not thread-safe: one per connection direction. */
  static final class Lines {
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();

    /**
     * Consumes bytes from {@code in} up to and including the next line break and returns the line,
     * or null when {@code in} ran out first (the part read so far is kept).
     */
    String next(ByteBuffer in) throws LineTooLong {
      while (in.hasRemaining()) {
        byte b = in.get();
        if (b == '\n') {
          String line = partial.toString(UTF_8);
          partial.reset();
          return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
        }
        if (partial.size() >= MAX_LINE_BYTES) {
          throw new LineTooLong();
        }
        partial.write(b);
      }
      return null;
    }

    /** What has arrived of an unfinished line (diagnostics). */
    String partial() {
      return partial.toString(UTF_8);
    }
  }
}
