package dev.lifecycle.guard.watchdog;

import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.guard.Enforcement;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The sampler: one daemon thread for every watched tree, started by the first {@link #watch} and
 * parked without a timeout while nothing is watched. Each tick it takes at most one process-table
 * snapshot per platform, shared by every tree found by a scan, and lets trees with a cgroup read
 * their own members. Thread-safe.
 */
public final class Watchdog {
  private static final LazyLogger LOG = LazyLogger.of(Watchdog.class);

  /** The sampler thread's name, for thread dumps and CPU accounting. */
  public static final String THREAD_NAME = "lifecycle-guard";

  private static final Watchdog SHARED = new Watchdog();

  /** A registration that watches nothing: trees without ceilings start no thread. */
  private static final Registration NOTHING = () -> {};

  private final Object lock = new Object();
  private final List<Judge> judges = new ArrayList<>(); // guarded by lock
  private final List<Judge> retired = new ArrayList<>(); // guarded by lock; closed, not released
  private Thread thread; // guarded by lock

  /** Ends one tree's watch. Idempotent; thread-safe. */
  @FunctionalInterface
  public interface Registration extends AutoCloseable {
    /** Stops watching; a sample under way may still finish. */
    @Override
    void close();
  }

  private Watchdog() {}

  /**
   * The JVM's one watchdog.
   *
   * @return the shared watchdog
   */
  public static Watchdog shared() {
    return SHARED;
  }

  /**
   * Watches {@code tree} against {@code ceilings}; starts the sampler thread if it is the first.
   *
   * @param tree what is sampled and ended
   * @param platform reads the process table for trees that need it
   * @param ceilings the limits; nothing is watched (and no thread started) when none is enabled
   * @param enforcement which ceilings the kernel already enforces (those the watchdog only reports)
   * @return closes the watch
   */
  public Registration watch(
      Watched tree, ProcessPlatform platform, Ceilings ceilings, Enforcement enforcement) {
    Objects.requireNonNull(tree, "tree");
    Objects.requireNonNull(platform, "platform");
    if (!ceilings.anyEnabled()) {
      return NOTHING;
    }
    Judge judge = new Judge(tree, platform, ceilings, enforcement, System.nanoTime());
    synchronized (lock) {
      judges.add(judge);
      if (thread == null) {
        thread = Threads.startDaemon(THREAD_NAME, this::loop);
      }
      lock.notifyAll();
    }
    return () -> remove(judge);
  }

  /**
   * How many trees are watched now.
   *
   * @return the number of registrations not yet closed or finished
   */
  public int watchedCount() {
    synchronized (lock) {
      return judges.size();
    }
  }

  /** A closed registration: its tree is released on the sampler thread, which may be using it. */
  private void remove(Judge judge) {
    synchronized (lock) {
      if (judges.remove(judge)) {
        retired.add(judge);
        lock.notifyAll();
      }
    }
  }

  /** On the sampler thread: a tree that is gone or ended. */
  private void drop(Judge judge) {
    boolean mine;
    synchronized (lock) {
      mine = judges.remove(judge);
    }
    if (mine) {
      release(judge);
    }
  }

  private static void release(Judge judge) {
    try {
      judge.tree().unwatched();
    } catch (RuntimeException e) {
      LOG.debug("runaway guard: cannot release tree {}", judge.tree().label(), e);
    }
  }

  private void loop() {
    List<Judge> due = new ArrayList<>();
    List<Judge> ended = new ArrayList<>();
    while (true) {
      long now;
      synchronized (lock) {
        ended.addAll(retired);
        retired.clear();
        now = System.nanoTime();
        long earliest = Long.MAX_VALUE;
        due.clear();
        // Trees due within half their interval join this tick: one wakeup and one snapshot serve
        // them all, and their ticks stay aligned from then on.
        for (Judge j : judges) {
          if (j.nextDue() - now <= j.interval() / 2) {
            due.add(j);
          } else {
            earliest = Math.min(earliest, j.nextDue() - now);
          }
        }
        if (due.isEmpty() && ended.isEmpty()) {
          try {
            if (judges.isEmpty()) {
              lock.wait(); // idle: no wakeup at all until a tree is watched
            } else {
              lock.wait(Math.max(1, earliest / 1_000_000), (int) (earliest % 1_000_000));
            }
          } catch (InterruptedException e) {
            // A daemon nobody interrupts on purpose: keep watching.
          }
          continue;
        }
      }
      for (Judge j : ended) {
        release(j);
      }
      ended.clear();
      Map<ProcessPlatform, ProcessTable> tables = new IdentityHashMap<>();
      for (Judge j : due) {
        boolean keep;
        try {
          ProcessTable table = null;
          if (j.tree().needsTable()) {
            table = tables.get(j.platform());
            if (table == null) {
              table = j.platform().snapshot();
              tables.put(j.platform(), table);
            }
          }
          keep = j.tick(table, now);
        } catch (RuntimeException e) {
          LOG.warn("runaway guard: cannot sample tree {}; trying again", j.tree().label(), e);
          keep = true;
        }
        if (!keep) {
          drop(j);
        }
      }
    }
  }
}
