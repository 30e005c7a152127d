package dev.lifecycle.probe;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What one probe observed. Immutable and thread-safe.
 *
 * @param endpoint the endpoint probed
 * @param status what happened
 * @param elapsed how long the probe took
 * @param error the failure behind {@link Status#ERROR}, else {@code null}; see {@link #failure()}
 */
public record ProbeResult(Endpoint endpoint, Status status, Duration elapsed, IOException error) {

  /** The outcome of a probe. Only {@link #REACHABLE} means something answers. */
  public enum Status {
    /** A connection was accepted (by the kernel, for the listener) within the timeout. */
    REACHABLE,
    /** Nothing listens there: a closed port, or a socket file without a listener. */
    REFUSED,
    /** No answer within the timeout: a listener too busy to accept, or dropped packets. */
    TIMED_OUT,
    /** The socket file does not exist. */
    NOT_FOUND,
    /** Any other failure (permission, bad address, interrupted): see {@link #failure()}. */
    ERROR
  }

  /**
   * Checks the components.
   *
   * @param endpoint the endpoint probed
   * @param status what happened
   * @param elapsed how long the probe took
   * @param error the failure behind {@link Status#ERROR}, else {@code null}; see {@link #failure()}
   * @throws NullPointerException if {@code endpoint}, {@code status} or {@code elapsed} is {@code
   *     null}
   * @throws IllegalArgumentException unless {@code error} is given exactly for {@link Status#ERROR}
   */
  public ProbeResult {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(elapsed, "elapsed");
    if ((status == Status.ERROR) != (error != null)) {
      throw new IllegalArgumentException("an error is given exactly for ERROR: " + status);
    }
  }

  /**
   * Whether something accepted the connection.
   *
   * @return {@code true} only for {@link Status#REACHABLE}
   */
  public boolean isReachable() {
    return status == Status.REACHABLE;
  }

  /**
   * The exception behind {@link Status#ERROR}.
   *
   * @return the exception, or empty for every other status
   */
  public Optional<IOException> failure() {
    return Optional.ofNullable(error);
  }
}
