package dev.lifecycle.worker;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.time.Limit;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a job file says: one immutable snapshot of a job. Timestamps are wall-clock (for people and
 * other processes); the ceiling itself is measured on the monotonic clock (see {@link Worker}).
 * Thread-safe.
 *
 * @param jobId the caller's name for the job
 * @param status the latched status
 * @param owner the worker process that runs (or ran) the job
 * @param startedAt when the worker started the job
 * @param endedAt when the status left {@link WorkerStatus#RUNNING}; null while running
 * @param ceiling the wall-clock ceiling in force
 * @param reason why the job ended (empty while running or after a plain completion)
 */
public record JobRecord(
    String jobId,
    WorkerStatus status,
    ProcessIdentity owner,
    Instant startedAt,
    Instant endedAt,
    Limit ceiling,
    String reason) {

  /**
   * Checks the components.
   *
   * @param jobId the caller's name for the job
   * @param status the latched status
   * @param owner the worker process that runs (or ran) the job
   * @param startedAt when the worker started the job
   * @param endedAt when the status left {@link WorkerStatus#RUNNING}; null while running
   * @param ceiling the wall-clock ceiling in force
   * @param reason why the job ended (empty while running or after a plain completion)
   * @throws NullPointerException if a component other than {@code endedAt} is {@code null}
   * @throws IllegalArgumentException unless {@code endedAt} is set exactly for a terminal status
   */
  public JobRecord {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(ceiling, "ceiling");
    Objects.requireNonNull(reason, "reason");
    if (status.isTerminal() != (endedAt != null)) {
      throw new IllegalArgumentException("endedAt must be set exactly when the status is terminal");
    }
  }

  /**
   * When the job ended, if it has.
   *
   * @return {@code endedAt}, or empty while the job runs
   */
  public Optional<Instant> ended() {
    return Optional.ofNullable(endedAt);
  }

  /** This record moved to a terminal {@code status} at {@code when}. */
  JobRecord end(WorkerStatus to, Instant when, String why) {
    return new JobRecord(jobId, to, owner, startedAt, when, ceiling, why);
  }
}
