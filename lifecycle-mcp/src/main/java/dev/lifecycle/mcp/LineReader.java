package dev.lifecycle.mcp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Reads newline-delimited UTF-8 lines with a bound on their length, so a server that floods its
 * stdout without a newline cannot exhaust the heap. Not thread-safe: one reader thread.
 */
final class LineReader {
  private final InputStream in;
  private final int maxBytes;
  private final byte[] buffer = new byte[8192];
  private int position;
  private int limit;

  LineReader(InputStream in, int maxBytes) {
    this.in = in;
    this.maxBytes = maxBytes;
  }

  /**
   * The next line without its terminator ({@code \n} or {@code \r\n}), or empty at end-of-file. A
   * last line without a newline is returned too.
   *
   * @throws LineTooLongException when a line exceeds the bound
   */
  Optional<String> next() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    while (true) {
      if (position == limit) {
        limit = in.read(buffer);
        position = 0;
        if (limit <= 0) {
          limit = 0;
          return line.size() == 0 ? Optional.empty() : Optional.of(decode(line));
        }
      }
      int start = position;
      while (position < limit && buffer[position] != '\n') {
        position++;
      }
      if (line.size() + (position - start) > maxBytes) {
        throw new LineTooLongException(maxBytes);
      }
      line.write(buffer, start, position - start);
      if (position < limit) { // found the newline
        position++;
        return Optional.of(decode(line));
      }
    }
  }

  private static String decode(ByteArrayOutputStream line) {
    String text = line.toString(StandardCharsets.UTF_8);
    return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
  }

  /** A line longer than the reader accepts. */
  static final class LineTooLongException extends IOException {
    LineTooLongException(int maxBytes) {
      super("the server sent a line longer than " + maxBytes + " bytes");
    }
  }
}
