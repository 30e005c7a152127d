package dev.lifecycle.internal;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.WRITE;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one exclusive lock on a lock file: an in-JVM lock (file locks belong to the whole process, so
 * they cannot exclude two threads of one JVM), then an advisory lock on the file (to exclude other
 * processes), both within one deadline. The lock file is created 0600 without following links and
 * never deleted: unlinking a lock file lets a newcomer lock a fresh inode while an old holder still
 * holds the unlinked one. A holder that dies (even by SIGKILL) releases it with its descriptors.
 * Thread-safe.
 */
public final class FileLocks {
  private static final ConcurrentHashMap<Path, ReentrantLock> IN_JVM = new ConcurrentHashMap<>();

  private FileLocks() {}

  /** What runs under the lock. */
  @FunctionalInterface
  public interface Action<T> {
    /**
     * Runs the action.
     *
     * @return its result
     * @throws IOException if it fails
     */
    T run() throws IOException;
  }

  /** Thrown when the lock stays held past the deadline. */
  public static final class Timeout extends IOException {
    private static final long serialVersionUID = 1L;

    Timeout(String message) {
      super(message);
    }
  }

  /**
   * Runs {@code action} holding the lock of {@code lockFile}, waiting at most {@code timeout}
   * (polling: a blocking lock() would wait forever on a stopped holder).
   *
   * @param lockFile the lock file, created 0600 if absent
   * @param timeout the longest wait for the lock
   * @param action what runs holding the lock
   * @param <T> the action's result
   * @return the action's result
   * @throws IOException if the action fails or the lock file cannot be opened
   * @throws Timeout when another thread or process held it for longer than {@code timeout}
   */
  @SuppressWarnings("try") // the FileLock is held, not used: closing it is the release
  public static <T> T holding(Path lockFile, Duration timeout, Action<T> action)
      throws IOException {
    Path key = lockFile.toAbsolutePath().normalize();
    ReentrantLock local = IN_JVM.computeIfAbsent(key, path -> new ReentrantLock());
    long deadline = System.nanoTime() + Durations.saturatedNanos(timeout);
    try {
      if (!local.tryLock(Durations.saturatedNanos(timeout), TimeUnit.NANOSECONDS)) {
        throw timeout(lockFile, "another thread of this JVM", timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for " + lockFile);
    }
    try (FileChannel channel =
            FileChannel.open(
                lockFile,
                Set.of(CREATE, WRITE, NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
        FileLock ignored = lockFile(channel, lockFile, deadline, timeout)) {
      return action.run();
    } finally {
      local.unlock();
    }
  }

  /**
   * Whether a thread of this JVM waits for the lock (lets tests see a holder block others).
   *
   * @param lockFile the lock file
   * @return {@code true} if a thread of this JVM is queued for it
   */
  public static boolean hasWaiters(Path lockFile) {
    ReentrantLock local = IN_JVM.get(lockFile.toAbsolutePath().normalize());
    return local != null && local.hasQueuedThreads();
  }

  private static FileLock lockFile(
      FileChannel channel, Path lockFile, long deadline, Duration timeout) throws IOException {
    Backoff backoff = Backoff.fileWait();
    while (true) {
      try {
        FileLock lock = channel.tryLock();
        if (lock != null) {
          return lock;
        }
      } catch (OverlappingFileLockException e) {
        // Cannot happen behind the in-JVM lock unless another channel of ours holds the file.
      }
      if (System.nanoTime() - deadline > 0) {
        throw timeout(lockFile, "another process", timeout);
      }
      backoff.pause();
    }
  }

  private static Timeout timeout(Path lockFile, String holder, Duration timeout) {
    return new Timeout(lockFile + " was held by " + holder + " for more than " + timeout);
  }
}
