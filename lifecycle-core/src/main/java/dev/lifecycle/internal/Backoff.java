package dev.lifecycle.internal;

import java.io.InterruptedIOException;

/**
 * A polling pause for state that other processes change (files, locks, records): doubling from a
 * first pause up to a ceiling. Not thread-safe: one per waiting loop.
 */
public final class Backoff {
  private final long maxMillis;
  private long millis;

  private Backoff(long firstMillis, long maxMillis) {
    this.millis = firstMillis;
    this.maxMillis = maxMillis;
  }

  /**
   * 1 ms doubling to 50 ms: a file or lock changes within milliseconds when its holder is live.
   *
   * @return a fresh backoff for one waiting loop
   */
  public static Backoff fileWait() {
    return new Backoff(1, 50);
  }

  /**
   * Sleeps the current pause and doubles it.
   *
   * @throws InterruptedIOException if interrupted (the interrupt flag is set again)
   */
  public void pause() throws InterruptedIOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting");
    }
    millis = Math.min(maxMillis, millis * 2);
  }
}
