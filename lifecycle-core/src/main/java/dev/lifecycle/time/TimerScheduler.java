package dev.lifecycle.time;

import java.time.Duration;

/**
 * Runs tasks after a delay. The seam that lets tests replace real time with virtual time.
 * Implementations must be thread-safe: timers are armed and cancelled from any thread.
 */
public interface TimerScheduler {
  /**
   * Runs {@code task} once after {@code delay}. Implementations clamp delays beyond {@link
   * Limit#MAX} to it and must not run the task on the calling thread.
   *
   * @param delay how long to wait; zero runs the task as soon as possible
   * @param task what to run, once
   * @return the handle that cancels the task
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  TimerHandle schedule(Duration delay, Runnable task);

  /**
   * The scheduler's clock.
   *
   * @return nanoseconds from an arbitrary origin, in the sense of {@link System#nanoTime()}
   */
  long nanoTime();

  /**
   * The JVM-wide scheduler: one daemon thread named {@code lifecycle-timer}, created on first use,
   * so it never keeps the JVM alive. A task that throws is logged and does not stop the thread.
   * Tasks share that thread: they should be short and hand blocking work elsewhere.
   *
   * @return the shared scheduler
   */
  static TimerScheduler system() {
    return SystemTimerScheduler.INSTANCE;
  }
}
