package dev.lifecycle.broker;

import dev.lifecycle.internal.FileLocks;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.time.Limit;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The cross-process lock a starter holds while it checks the record, spawns a broker and waits for
 * it: {@code <name>.start-lock} beside the record. It only makes cold starts cheap (one spawn, not
 * N); "one broker" itself does not depend on it, since a broker never publishes over a live one.
 */
final class StartLock {
  private StartLock() {}

  static <T> T holding(RecordStore store, String name, Limit timeout, FileLocks.Action<T> action)
      throws IOException {
    Path lockFile = store.directory().resolve(name + ".start-lock");
    try {
      return FileLocks.holding(
          lockFile, timeout.isEnabled() ? timeout.duration() : Limit.MAX, action);
    } catch (FileLocks.Timeout e) {
      throw new BrokerException(
          lockFile + " was held by another starter for more than " + timeout, 0, e);
    }
  }
}
