package dev.lifecycle.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads one variable from another process's environment ({@code /proc/<pid>/environ}, Linux). The
 * process SPI can search by {@code name=value} but not read a value, and the leak tracker needs to
 * learn the tree cookies of the children it sees.
 */
final class Environ {
  private Environ() {}

  /** The value of {@code name} in the environment of {@code pid}, if it can be read. */
  static Optional<String> get(long pid, String name) {
    byte[] raw;
    try {
      raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
    } catch (IOException | SecurityException e) {
      return Optional.empty();
    }
    byte[] prefix = (name + "=").getBytes(StandardCharsets.UTF_8);
    int start = 0;
    for (int i = 0; i <= raw.length; i++) {
      if (i == raw.length || raw[i] == 0) {
        if (i - start >= prefix.length && startsWith(raw, start, prefix)) {
          return Optional.of(
              new String(
                  raw, start + prefix.length, i - start - prefix.length, StandardCharsets.UTF_8));
        }
        start = i + 1;
      }
    }
    return Optional.empty();
  }

  private static boolean startsWith(byte[] raw, int offset, byte[] prefix) {
    for (int j = 0; j < prefix.length; j++) {
      if (raw[offset + j] != prefix[j]) {
        return false;
      }
    }
    return true;
  }
}
