package dev.lifecycle.time;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@code onIdle} once nothing has held a lease for the timeout. Thread-safe: leases may be
 * acquired and closed from any thread.
 *
 * <p>Every client, request and stream holds a {@link Lease}. The idle timer is armed exactly when
 * the last lease closes (and at build time, so a tracker that never gets a client still idles out),
 * and cancelled by every {@link #acquire()}. Leases may close in any order and from any thread:
 * there is a single count, so whether a disconnect or a request's continuation closes last, that
 * close arms the timer. At fire time the tracker re-checks, under its lock, that no lease is open,
 * that the timer is still the current one and that the tracker is open, so a stale timer never
 * fires. {@code onIdle} runs at most once per idle period, on the scheduler's thread and outside
 * the lock; an exception from it is logged. A disabled timeout never arms.
 */
public final class IdleTracker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IdleTracker.class);

  private final Limit timeout;
  private final TimerScheduler scheduler;
  private final Runnable onIdle;

  private final Object lock = new Object();
  private int leases; // guarded by lock
  private long generation; // guarded by lock; bumped whenever a pending timer becomes stale
  private TimerHandle timer = TimerHandle.NONE; // guarded by lock
  private boolean closed; // guarded by lock

  private IdleTracker(Builder builder) {
    timeout = requireNonNull(builder.timeout, "timeout not set");
    scheduler = builder.scheduler != null ? builder.scheduler : TimerScheduler.system();
    onIdle = requireNonNull(builder.onIdle, "onIdle not set");
    synchronized (lock) {
      arm();
    }
  }

  /**
   * Starts building a tracker.
   *
   * @return a builder; {@code timeout} and {@code onIdle} are required
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Marks the start of activity: cancels a pending idle timer. Leases acquired after {@link
   * #close()} still count but never arm anything.
   *
   * @return the lease; closing it ends this unit of activity
   */
  public Lease acquire() {
    synchronized (lock) {
      leases++;
      disarm();
    }
    return new Lease();
  }

  private void release() {
    synchronized (lock) {
      if (--leases == 0) {
        arm();
      }
    }
  }

  // Both called with the lock held.
  private void arm() {
    if (closed || !timeout.isEnabled()) {
      return;
    }
    disarm();
    long armedAt = generation;
    Duration delay = timeout.duration();
    try {
      timer = scheduler.schedule(delay, () -> fire(armedAt));
    } catch (RuntimeException e) { // e.g. a shut-down scheduler: never throw from Lease.close()
      LOG.error("Could not arm the idle timer ({})", timeout, e);
    }
  }

  private void disarm() {
    generation++; // even if cancel() loses the race with a firing timer, fire() sees it is stale
    timer.cancel();
    timer = TimerHandle.NONE;
  }

  private void fire(long armedAt) {
    synchronized (lock) {
      // The generation alone suffices (acquire and close bump it); the rest is defence in depth.
      if (armedAt != generation || leases > 0 || closed) {
        return;
      }
      generation++; // at most once per idle period
      timer = TimerHandle.NONE;
    }
    try {
      onIdle.run();
    } catch (RuntimeException e) {
      LOG.error("Idle callback {} failed", onIdle, e);
    }
  }

  /**
   * Leases currently open (diagnostics).
   *
   * @return how many leases are open now
   */
  public int activeLeases() {
    synchronized (lock) {
      return leases;
    }
  }

  /**
   * Whether the idle timer is pending (diagnostics).
   *
   * @return true while the idle timer waits to fire
   */
  public boolean isIdleTimerArmed() {
    synchronized (lock) {
      return timer.isArmed();
    }
  }

  /** Cancels a pending idle timer and stops all future arming. Idempotent. */
  @Override
  public void close() {
    synchronized (lock) {
      if (!closed) {
        disarm();
        closed = true;
      }
    }
  }

  @Override
  public String toString() {
    synchronized (lock) {
      return "IdleTracker["
          + timeout
          + ", leases="
          + leases
          + ", armed="
          + timer.isArmed()
          + (closed ? ", closed]" : "]");
    }
  }

  /** One unit of activity. {@link #close()} is idempotent and safe from any thread. */
  public final class Lease implements AutoCloseable {
    private final AtomicBoolean closed = new AtomicBoolean();

    private Lease() {}

    /** Ends this unit of activity; when it was the last open lease, the idle timer is armed. */
    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        release();
      }
    }

    /**
     * Whether this lease still counts as activity.
     *
     * @return true until {@link #close()}
     */
    public boolean isOpen() {
      return !closed.get();
    }
  }

  /** Builds an {@link IdleTracker}; {@code timeout} and {@code onIdle} are required. */
  public static final class Builder {
    private Limit timeout;
    private TimerScheduler scheduler; // null: TimerScheduler.system()
    private Runnable onIdle;

    private Builder() {}

    /**
     * How long without any open lease counts as idle.
     *
     * @param timeout the idle timeout; disabled never fires
     * @return this builder
     */
    public Builder timeout(Limit timeout) {
      this.timeout = requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Where the idle timer runs (default {@link TimerScheduler#system()}).
     *
     * @param scheduler the scheduler, e.g. a virtual-time one in tests
     * @return this builder
     */
    public Builder scheduler(TimerScheduler scheduler) {
      this.scheduler = requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * What runs when the tracker has been idle for the timeout.
     *
     * @param onIdle the callback, run on the scheduler's thread; a failure is logged
     * @return this builder
     */
    public Builder onIdle(Runnable onIdle) {
      this.onIdle = requireNonNull(onIdle, "onIdle");
      return this;
    }

    /**
     * Builds the tracker and arms its idle timer, as no lease is open yet.
     *
     * @return the tracker
     */
    public IdleTracker build() {
      return new IdleTracker(this);
    }
  }
}
