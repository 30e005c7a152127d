package dev.lifecycle.time;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Arms timers. Guards ({@link #arm}) bound something (a TTL, a startup) and never keep the JVM
 * alive; escalations ({@link #armEscalation}) finish something already under way (SIGKILL after
 * SIGTERM) and do keep it alive until they have run. Thread-safe (static methods only).
 */
public final class Guards {
  private Guards() {}

  /**
   * {@link #arm(Limit, Runnable, TimerScheduler)} on {@link TimerScheduler#system()}.
   *
   * @param limit how long until {@code onExpiry} runs; disabled arms nothing
   * @param onExpiry what runs when the limit elapses
   * @return the handle that cancels it; {@link TimerHandle#NONE} for a disabled limit
   */
  public static TimerHandle arm(Limit limit, Runnable onExpiry) {
    return arm(limit, onExpiry, TimerScheduler.system());
  }

  /**
   * Runs {@code onExpiry} once {@code limit} has elapsed, unless cancelled first. A disabled limit
   * schedules nothing at all (a zero delay would fire at once instead of never) and returns {@link
   * TimerHandle#NONE}.
   *
   * @param limit how long until {@code onExpiry} runs; disabled arms nothing
   * @param onExpiry what runs when the limit elapses, on the scheduler's thread
   * @param scheduler where the timer runs
   * @return the handle that cancels it; {@link TimerHandle#NONE} for a disabled limit
   */
  public static TimerHandle arm(Limit limit, Runnable onExpiry, TimerScheduler scheduler) {
    requireNonNull(limit, "limit");
    requireNonNull(onExpiry, "onExpiry");
    requireNonNull(scheduler, "scheduler");
    return limit.isEnabled() ? scheduler.schedule(limit.duration(), onExpiry) : TimerHandle.NONE;
  }

  /**
   * {@link #armEscalation(Duration, Runnable, TimerScheduler)} on the system scheduler.
   *
   * @param delay how long until {@code step} runs (zero runs it as soon as possible)
   * @param step the escalation, e.g. SIGKILL after SIGTERM
   * @return the handle that cancels it (and releases its keep-alive)
   */
  public static TimerHandle armEscalation(Duration delay, Runnable step) {
    return armEscalation(delay, step, TimerScheduler.system());
  }

  /**
   * Runs {@code step} after {@code delay} while holding a keep-alive token (a non-daemon thread
   * runs while any is held), so the JVM cannot exit by running out of non-daemon threads before the
   * step ran. The token is released after the step ran (even if it threw) or when the returned
   * handle cancels it.
   *
   * @param delay how long until {@code step} runs (zero runs it as soon as possible)
   * @param step the escalation, e.g. SIGKILL after SIGTERM
   * @param scheduler where the timer runs
   * @return the handle that cancels it (and releases its keep-alive)
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public static TimerHandle armEscalation(Duration delay, Runnable step, TimerScheduler scheduler) {
    requireNonNull(delay, "delay");
    requireNonNull(step, "step");
    requireNonNull(scheduler, "scheduler");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("Negative escalation delay: " + delay);
    }
    KeepAlive keepAlive = KeepAlive.acquire();
    TimerHandle timer;
    try {
      timer =
          scheduler.schedule(
              delay,
              () -> {
                try {
                  step.run();
                } finally {
                  keepAlive.close();
                }
              });
    } catch (RuntimeException | Error e) {
      keepAlive.close();
      throw e;
    }
    return new TimerHandle() {
      @Override
      public boolean cancel() {
        boolean cancelled = timer.cancel();
        if (cancelled) {
          keepAlive.close();
        }
        return cancelled;
      }

      @Override
      public boolean isArmed() {
        return timer.isArmed();
      }

      @Override
      public String toString() {
        return "Escalation" + timer;
      }
    };
  }
}
