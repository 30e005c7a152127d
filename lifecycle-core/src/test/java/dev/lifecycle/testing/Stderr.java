package dev.lifecycle.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** What code prints to {@link System#err} (where slf4j-simple logs in tests). Not thread-safe. */
public final class Stderr {
  private Stderr() {}

  /** Runs {@code action} and returns what it printed to standard error meanwhile. */
  public static String during(Runnable action) {
    PrintStream original = System.err;
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }
}
