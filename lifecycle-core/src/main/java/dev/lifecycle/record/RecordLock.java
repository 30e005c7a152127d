package dev.lifecycle.record;

import dev.lifecycle.internal.FileLocks;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** The exclusive locks of a store's record names ({@link FileLocks} on {@code <name>.lock}). */
final class RecordLock {

  /** Holders only read and rename or delete one small file; longer means a stopped process. */
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final Path directory;
  private final boolean enabled;

  /** {@code enabled} false only in tests: the read-then-delete that the lock exists to prevent. */
  RecordLock(Path directory, boolean enabled) {
    this.directory = directory;
    this.enabled = enabled;
  }

  /** The lock file of {@code name}, a checked record name. */
  Path file(String name) {
    return directory.resolve(name + ".lock");
  }

  <T> T holding(String name, FileLocks.Action<T> action) throws IOException {
    return enabled ? FileLocks.holding(file(name), TIMEOUT, action) : action.run();
  }

  /** Whether a thread of this JVM waits for the lock (lets tests see a publisher blocked). */
  static boolean hasWaiters(Path lockFile) {
    return FileLocks.hasWaiters(lockFile);
  }
}
