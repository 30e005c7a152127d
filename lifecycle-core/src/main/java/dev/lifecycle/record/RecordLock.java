package dev.lifecycle.record;

import dev.lifecycle.internal.FileLocks;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** The exclusive lock of one record name ({@link FileLocks} on {@code <name>.lock}). */
final class RecordLock {

  /** Holders only read and rename or delete one small file; longer means a stopped process. */
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private RecordLock() {}

  static <T> T holding(Path lockFile, FileLocks.Action<T> action) throws IOException {
    return FileLocks.holding(lockFile, TIMEOUT, action);
  }

  /** Whether a thread of this JVM waits for the lock (lets tests see a publisher blocked). */
  static boolean hasWaiters(Path lockFile) {
    return FileLocks.hasWaiters(lockFile);
  }
}
