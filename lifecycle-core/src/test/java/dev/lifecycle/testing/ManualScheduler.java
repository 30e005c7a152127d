package dev.lifecycle.testing;

import static java.util.Objects.requireNonNull;

import dev.lifecycle.time.Limit;
import dev.lifecycle.time.TimerHandle;
import dev.lifecycle.time.TimerScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Virtual time: tasks run only inside {@link #advance}, in due order, on the calling thread. Every
 * schedule call is recorded. Like the system scheduler, a task that throws is caught (and kept in
 * {@link #failures()}) and long delays are clamped at {@link Limit#MAX}. The one fake scheduler of
 * lifecycle's tests (shared through lifecycle-core's test jar). Thread-safe.
 */
public final class ManualScheduler implements TimerScheduler {
  private final PriorityQueue<Entry> queue =
      new PriorityQueue<>(
          Comparator.comparingLong((Entry e) -> e.due).thenComparingLong(e -> e.seq));
  private final List<Duration> scheduled = new ArrayList<>();
  private final List<Throwable> failures = new ArrayList<>();
  private long now;
  private long seq;

  /**
   * A scheduler that was shut down: every schedule call throws {@link RejectedExecutionException},
   * and its clock stands at 0.
   *
   * @return a new such scheduler
   */
  public static TimerScheduler shutDown() {
    return new TimerScheduler() {
      @Override
      public TimerHandle schedule(Duration delay, Runnable task) {
        throw new RejectedExecutionException("deliberate: shut down");
      }

      @Override
      public long nanoTime() {
        return 0;
      }
    };
  }

  @Override
  public synchronized TimerHandle schedule(Duration delay, Runnable task) {
    requireNonNull(task, "task");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("Negative delay: " + delay);
    }
    scheduled.add(delay);
    Entry entry = new Entry(now + saturatedNanos(delay), seq++, task);
    queue.add(entry);
    return entry;
  }

  /** Nanoseconds of {@code delay}, at most those of {@link Limit#MAX}, as the system scheduler. */
  private static long saturatedNanos(Duration delay) {
    return delay.compareTo(Limit.MAX) > 0 ? Limit.MAX.toNanos() : delay.toNanos();
  }

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  /** Moves virtual time forward by {@code by}, running every task that falls due on the way. */
  public void advance(Duration by) {
    long target;
    synchronized (this) {
      target = Math.addExact(now, by.toNanos());
    }
    while (true) {
      Entry next;
      synchronized (this) {
        next = queue.peek();
        if (next == null || next.due > target) {
          now = target;
          return;
        }
        queue.poll();
        now = next.due;
      }
      next.run(); // outside the lock, like a real timer thread
    }
  }

  /** Every delay passed to {@link #schedule}, in call order. */
  public synchronized List<Duration> scheduled() {
    return List.copyOf(scheduled);
  }

  /** Tasks still waiting to run. */
  public synchronized int pending() {
    return (int) queue.stream().filter(Entry::isArmed).count();
  }

  /** What the tasks that ran threw, in run order. */
  public synchronized List<Throwable> failures() {
    return List.copyOf(failures);
  }

  private final class Entry implements TimerHandle {
    private static final int ARMED = 0;
    private static final int STARTED = 1;
    private static final int CANCELLED = 2;

    final long due;
    final long seq;
    private final Runnable task;
    private final AtomicInteger state = new AtomicInteger(ARMED);

    Entry(long due, long seq, Runnable task) {
      this.due = due;
      this.seq = seq;
      this.task = task;
    }

    void run() {
      if (state.compareAndSet(ARMED, STARTED)) {
        try {
          task.run();
        } catch (Throwable t) {
          synchronized (ManualScheduler.this) {
            failures.add(t);
          }
        }
      }
    }

    @Override
    public boolean cancel() {
      return state.compareAndSet(ARMED, CANCELLED);
    }

    @Override
    public boolean isArmed() {
      return state.get() == ARMED;
    }
  }
}
