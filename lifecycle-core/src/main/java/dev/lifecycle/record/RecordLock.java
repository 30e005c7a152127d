package dev.lifecycle.record;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.WRITE;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The exclusive lock of one record name: an in-JVM lock (file locks belong to the whole process, so
 * they cannot exclude two threads of one JVM) and then an advisory lock on a sibling lock file (to
 * exclude other processes). The lock file is never deleted: unlinking a lock file lets a newcomer
 * lock a fresh inode while an old holder still holds the unlinked one.
 */
final class RecordLock {

  /** Holders only read and rename or delete one small file; longer means a stopped process. */
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private static final ConcurrentHashMap<Path, ReentrantLock> IN_JVM = new ConcurrentHashMap<>();

  private RecordLock() {}

  /** What runs under the lock. */
  interface Action<T> {
    T run() throws IOException;
  }

  static <T> T holding(Path lockFile, Action<T> action) throws IOException {
    ReentrantLock local = IN_JVM.computeIfAbsent(lockFile, path -> new ReentrantLock());
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    try {
      if (!local.tryLock(TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)) {
        throw timeout(lockFile, "another thread of this JVM");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for " + lockFile);
    }
    try (FileChannel channel =
            FileChannel.open(
                lockFile, Set.of(CREATE, WRITE, NOFOLLOW_LINKS), SafeFiles.OWNER_ONLY_FILE);
        FileLock ignored = lockFile(channel, lockFile, deadline)) {
      return action.run();
    } finally {
      local.unlock();
    }
  }

  /** Whether a thread of this JVM waits for the lock (lets tests see a publisher blocked). */
  static boolean hasWaiters(Path lockFile) {
    ReentrantLock local = IN_JVM.get(lockFile);
    return local != null && local.hasQueuedThreads();
  }

  /** Polls with a growing pause: a blocking lock() could wait forever on a stopped holder. */
  private static FileLock lockFile(FileChannel channel, Path lockFile, long deadline)
      throws IOException {
    long pauseMillis = 1;
    while (true) {
      FileLock lock = channel.tryLock();
      if (lock != null) {
        return lock;
      }
      if (System.nanoTime() - deadline > 0) {
        throw timeout(lockFile, "another process");
      }
      try {
        Thread.sleep(pauseMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted waiting for " + lockFile);
      }
      pauseMillis = Math.min(pauseMillis * 2, 50);
    }
  }

  private static IOException timeout(Path lockFile, String holder) {
    return new IOException(
        lockFile + " is held by " + holder + " for more than " + TIMEOUT.toSeconds() + " s");
  }
}
