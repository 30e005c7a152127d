package dev.lifecycle.broker;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.record.SessionRecord;
import java.util.Objects;

/**
 * A broker that {@link BrokerClient#ensure()} found serving. Immutable and thread-safe.
 *
 * @param record its record, as read when it answered
 * @param started whether this call started it (false: an existing broker was reused)
 */
public record BrokerSession(SessionRecord record, boolean started) {
  /**
   * Checks the record.
   *
   * @param record its record, as read when it answered
   * @param started whether this call started it (false: an existing broker was reused)
   * @throws NullPointerException if {@code record} is {@code null}
   */
  public BrokerSession {
    Objects.requireNonNull(record, "record");
  }

  /**
   * Where the broker listens.
   *
   * @return the endpoint of its record
   */
  public Endpoint endpoint() {
    return record.endpoint();
  }

  /**
   * The broker's pid.
   *
   * @return the pid of the record's owner
   */
  public long pid() {
    return record.owner().pid();
  }
}
