package dev.lifecycle.time;

import dev.lifecycle.internal.Threads;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A token that keeps the JVM alive while open: as long as at least one token in the JVM is open, a
 * non-daemon thread named {@code lifecycle-keepalive} exists, so the JVM cannot exit by running out
 * of non-daemon threads (e.g. {@code main} returning) while an escalation is under way. It cannot
 * stop {@link System#exit}: that must wait for the escalation itself.
 *
 * <p>Tokens are reference counted: the thread starts on the first open token and ends when the last
 * one closes. {@link #close()} is idempotent and safe from any thread.
 */
final class KeepAlive implements AutoCloseable {
  private static final Object LOCK = new Object();
  private static int open; // guarded by LOCK
  private static Thread keeper; // guarded by LOCK; at most one, alive while open > 0

  private final AtomicBoolean closed = new AtomicBoolean();

  private KeepAlive() {}

  /**
   * Opens a token; the JVM stays up at least until it is closed.
   *
   * @return the open token
   */
  public static KeepAlive acquire() {
    synchronized (LOCK) {
      open++;
      if (keeper == null) { // an old keeper still waking up after 1 -> 0 -> 1 simply stays on
        // Not a daemon: keeping the JVM alive is the whole point.
        keeper = Threads.startKeepingJvm("lifecycle-keepalive", KeepAlive::keepAlive);
      }
    }
    return new KeepAlive();
  }

  private static void keepAlive() {
    synchronized (LOCK) {
      while (open > 0) {
        try {
          LOCK.wait();
        } catch (InterruptedException ignored) {
          // Only the last close may end this thread.
        }
      }
      keeper = null;
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      synchronized (LOCK) {
        if (--open == 0) {
          LOCK.notifyAll();
        }
      }
    }
  }

  /**
   * Whether this token still keeps the JVM up.
   *
   * @return true until {@link #close()}
   */
  public boolean isOpen() {
    return !closed.get();
  }

  /** Open tokens in this JVM (diagnostics). */
  static int openTokens() {
    synchronized (LOCK) {
      return open;
    }
  }

  /** The current keeper thread, or null (diagnostics). */
  static Thread keeper() {
    synchronized (LOCK) {
      return keeper;
    }
  }
}
