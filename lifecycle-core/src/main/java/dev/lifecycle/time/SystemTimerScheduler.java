package dev.lifecycle.time;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

import dev.lifecycle.internal.Durations;
import dev.lifecycle.internal.Threads;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link TimerScheduler#system()}: loaded, and its executor created, on first use. */
final class SystemTimerScheduler implements TimerScheduler {
  static final SystemTimerScheduler INSTANCE = new SystemTimerScheduler();

  private static final Logger LOG = LoggerFactory.getLogger(SystemTimerScheduler.class);

  private final ScheduledThreadPoolExecutor executor;

  private SystemTimerScheduler() {
    executor =
        // Daemons: guards must never keep the JVM alive.
        new ScheduledThreadPoolExecutor(1, Threads.daemons("lifecycle-timer"));
    executor.setRemoveOnCancelPolicy(true); // a cancelled 30-day guard must not linger
  }

  @Override
  public TimerHandle schedule(Duration delay, Runnable task) {
    requireNonNull(task, "task");
    if (requireNonNull(delay, "delay").isNegative()) {
      throw new IllegalArgumentException("Negative delay: " + delay);
    }
    Task scheduled = new Task(task);
    // Nanoseconds, saturated at Limit.MAX: no int narrowing, no toMillis()/toNanos() overflow.
    scheduled.future = executor.schedule(scheduled, Durations.saturatedNanos(delay), NANOSECONDS);
    if (scheduled.state.get() == Task.CANCELLED) {
      scheduled.future.cancel(false); // cancel() ran before the future was published
    }
    return scheduled;
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  /**
   * Our own state machine instead of {@link ScheduledFuture#cancel}, which also returns true for a
   * task that is already running.
   */
  static final class Task implements TimerHandle, Runnable {
    static final int ARMED = 0;
    static final int STARTED = 1;
    static final int CANCELLED = 2;

    final AtomicInteger state = new AtomicInteger(ARMED);
    private final Runnable task;
    volatile ScheduledFuture<?> future;

    Task(Runnable task) {
      this.task = task;
    }

    @Override
    public void run() {
      if (!state.compareAndSet(ARMED, STARTED)) {
        return;
      }
      try {
        task.run();
      } catch (Throwable t) { // logged, and the timer thread lives on for the other guards
        LOG.error("Timer task {} failed", task, t);
      }
    }

    @Override
    public boolean cancel() {
      if (!state.compareAndSet(ARMED, CANCELLED)) {
        return false;
      }
      ScheduledFuture<?> f = future;
      if (f != null) {
        f.cancel(false); // removes it from the queue
      }
      return true;
    }

    @Override
    public boolean isArmed() {
      return state.get() == ARMED;
    }

    /** Remaining delay as the executor sees it: lets tests prove long delays are not narrowed. */
    long remainingNanos() {
      return future.getDelay(NANOSECONDS);
    }

    @Override
    public String toString() {
      return "TimerHandle["
          + (isArmed() ? "armed" : state.get() == STARTED ? "ran" : "cancelled")
          + "]";
    }
  }
}
