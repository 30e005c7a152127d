package dev.lifecycle.time;

/** A scheduled task that can be cancelled. Safe to use from any thread. */
public interface TimerHandle {
  /** The handle of a timer that was never armed (e.g. for a disabled {@link Limit}). */
  TimerHandle NONE = NoTimer.INSTANCE;

  /**
   * Cancels the task if it has not started yet. Idempotent.
   *
   * @return true if this call cancelled it (the task will never run), false if it had already run,
   *     started or been cancelled
   */
  boolean cancel();

  /**
   * Whether the task is still waiting to run.
   *
   * @return true while neither started nor cancelled
   */
  boolean isArmed();
}

/** The no-op handle: nothing to cancel. */
enum NoTimer implements TimerHandle {
  INSTANCE;

  @Override
  public boolean cancel() {
    return false;
  }

  @Override
  public boolean isArmed() {
    return false;
  }

  @Override
  public String toString() {
    return "TimerHandle[none]";
  }
}
