package dev.lifecycle.worker;

/**
 * The status of a background job. A job starts {@link #RUNNING} and leaves it exactly once, for one
 * of the three terminal states; nothing moves a terminal status. Immutable and thread-safe (an
 * enum).
 */
public enum WorkerStatus {
  /**
   * The job is running (or its owner died without recording an end: see {@link JobFile.JobState}).
   */
  RUNNING,
  /** The job returned normally before its ceiling. */
  COMPLETED,
  /** The job threw, or its worker was closed before the job ended. */
  FAILED,
  /** The ceiling elapsed first; the worker then ended its own process tree. */
  EXPIRED,
  /**
   * The worker's own tree breached one of its ceilings (memory, processes, CPU, spin); the worker
   * then ended its own process tree. The record's reason names the breach.
   */
  BREACHED;

  /**
   * Whether this status is final: anything but {@link #RUNNING}.
   *
   * @return {@code true} for COMPLETED, FAILED, EXPIRED and BREACHED
   */
  public boolean isTerminal() {
    return this != RUNNING;
  }
}
