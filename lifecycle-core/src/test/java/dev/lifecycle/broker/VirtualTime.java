package dev.lifecycle.broker;

import dev.lifecycle.time.TimerHandle;
import dev.lifecycle.time.TimerScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Virtual time for broker timers: tasks run only inside {@link #advance}, in due order. */
final class VirtualTime implements TimerScheduler {
  private final List<Task> tasks = new ArrayList<>();
  private long now;

  private final class Task implements TimerHandle {
    final long due;
    final Runnable action;
    boolean armed = true; // guarded by VirtualTime.this

    Task(long due, Runnable action) {
      this.due = due;
      this.action = action;
    }

    @Override
    public boolean cancel() {
      synchronized (VirtualTime.this) {
        boolean was = armed;
        armed = false;
        return was;
      }
    }

    @Override
    public boolean isArmed() {
      synchronized (VirtualTime.this) {
        return armed;
      }
    }
  }

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

  void advance(Duration by) {
    long target;
    synchronized (this) {
      target = now + by.toNanos();
    }
    while (true) {
      Task next = null;
      synchronized (this) {
        for (Task t : tasks) {
          if (t.armed && t.due <= target && (next == null || t.due < next.due)) {
            next = t;
          }
        }
        if (next == null) {
          now = target;
          return;
        }
        now = next.due;
        next.armed = false;
      }
      next.action.run();
    }
  }
}
