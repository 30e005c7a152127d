package dev.lifecycle.internal;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The pauses of a polling loop: they start short, so a fast change is seen at once, and double up
 * to a ceiling, so a slow one costs few polls. Not thread-safe: one per waiting loop (a loop whose
 * steps run on a scheduler hands it from step to step).
 */
public final class Backoff {
  private final long maxNanos;
  private long nextNanos;

  private Backoff(Duration first, Duration max) {
    this.nextNanos = Math.max(1, Durations.saturatedNanos(first));
    this.maxNanos = Math.max(nextNanos, Durations.saturatedNanos(max));
  }

  /**
   * Pauses from {@code first} doubling up to {@code max}.
   *
   * @param first the first pause (at least 1 ns)
   * @param max the longest pause (at least {@code first})
   * @return a fresh backoff for one waiting loop
   */
  public static Backoff of(Duration first, Duration max) {
    return new Backoff(first, max);
  }

  /**
   * 1 ms doubling to 50 ms, for state other processes change (files, locks, records): it changes
   * within milliseconds when its holder is live.
   *
   * @return a fresh backoff for one waiting loop
   */
  public static Backoff fileWait() {
    return of(Duration.ofMillis(1), Duration.ofMillis(50));
  }

  /**
   * The next pause, then doubles it (up to the ceiling).
   *
   * @return the pause in nanoseconds, positive
   */
  public long nextNanos() {
    long pause = nextNanos;
    nextNanos = nextNanos > maxNanos / 2 ? maxNanos : nextNanos * 2;
    return pause;
  }

  /**
   * The next pause, cut short so as not to pause past {@code deadline}.
   *
   * @param deadline a {@link System#nanoTime()} value
   * @return the pause in nanoseconds; zero or less when the deadline has passed
   */
  public long nextNanos(long deadline) {
    return Math.min(nextNanos(), deadline - System.nanoTime());
  }

  /**
   * Sleeps the next pause.
   *
   * @throws InterruptedIOException if interrupted (the interrupt flag is set again)
   */
  public void pause() throws InterruptedIOException {
    try {
      TimeUnit.NANOSECONDS.sleep(nextNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting");
    }
  }
}
