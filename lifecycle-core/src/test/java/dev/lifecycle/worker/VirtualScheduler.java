package dev.lifecycle.worker;

import dev.lifecycle.time.TimerHandle;
import dev.lifecycle.time.TimerScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Virtual time for worker tests: tasks run only inside {@link #advance}, on the calling thread, in
 * due order. (The time package's ManualScheduler is package-private there.)
 */
final class VirtualScheduler implements TimerScheduler {
  private final List<Task> tasks = new ArrayList<>();
  private long now;

  @Override
  public synchronized TimerHandle schedule(Duration delay, Runnable task) {
    Task t = new Task(now + delay.toNanos(), task);
    tasks.add(t);
    return t;
  }

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  synchronized int scheduledCount() {
    return tasks.size();
  }

  synchronized long armed() {
    return tasks.stream().filter(Task::isArmed).count();
  }

  void advance(Duration by) {
    long target;
    List<Task> due = new ArrayList<>();
    synchronized (this) {
      target = now + by.toNanos();
      for (Task t : tasks) {
        if (t.due <= target) {
          due.add(t);
        }
      }
      now = target;
    }
    due.sort((a, b) -> Long.compare(a.due, b.due));
    for (Task t : due) {
      if (t.state.compareAndSet(false, true)) {
        t.task.run();
      }
    }
  }

  private static final class Task implements TimerHandle {
    final long due;
    final Runnable task;
    final AtomicBoolean state = new AtomicBoolean(); // true once started or cancelled

    Task(long due, Runnable task) {
      this.due = due;
      this.task = task;
    }

    @Override
    public boolean cancel() {
      return state.compareAndSet(false, true);
    }

    @Override
    public boolean isArmed() {
      return !state.get();
    }
  }
}
