package dev.lifecycle.record;

import dev.lifecycle.probe.ProbeResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link RecordStore#read(String)} found, and what it did about it (or, from {@link
 * RecordStore#look(String)}, what it found and would do). Immutable and thread-safe.
 *
 * @param name the record's name
 * @param status the verdict
 * @param record the record, for every status that parsed one
 * @param probe the endpoint probe, when one was made ({@link Status#VALID}, {@link
 *     Status#UNRESPONSIVE})
 * @param quarantinedAs where a {@link Status#CORRUPT} record now lies
 * @param problem why the record is corrupt or unsupported
 * @param leftBehind artifacts a reclaim did not remove (not ours, wrong type, non-empty dir)
 */
public record ReadResult(
    String name,
    Status status,
    Optional<SessionRecord> record,
    Optional<ProbeResult> probe,
    Optional<Path> quarantinedAs,
    Optional<String> problem,
    List<Path> leftBehind) {

  /** The verdict on a record. Only {@link #VALID} may be used to connect. */
  public enum Status {
    /** The owner is alive and the endpoint answered. */
    VALID,
    /**
     * The owner is proven gone; {@code read} reclaimed the record and its artifacts ({@code look}
     * left them).
     */
    OWNER_GONE,
    /** The owner may be alive but the endpoint did not answer: left alone, it is not ours. */
    UNRESPONSIVE,
    /** No record of that name. */
    ABSENT,
    /**
     * Unreadable, corrupt, truncated, oversized or not a regular file: {@code read} moved it aside
     * to {@link #quarantinedAs()} and reported it ({@code look} left it).
     */
    CORRUPT,
    /** Written in a newer format by a newer library: left in place and reported. */
    UNSUPPORTED_FORMAT
  }

  /**
   * Checks the components and copies {@code leftBehind}.
   *
   * @param name the record's name
   * @param status the verdict
   * @param record the record, for every status that parsed one
   * @param probe the endpoint probe, when one was made ({@link Status#VALID}, {@link
   *     Status#UNRESPONSIVE})
   * @param quarantinedAs where a {@link Status#CORRUPT} record now lies
   * @param problem why the record is corrupt or unsupported
   * @param leftBehind artifacts a reclaim did not remove (not ours, wrong type, non-empty dir)
   * @throws NullPointerException if a component is {@code null}
   */
  public ReadResult {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(probe, "probe");
    Objects.requireNonNull(quarantinedAs, "quarantinedAs");
    Objects.requireNonNull(problem, "problem");
    leftBehind = List.copyOf(leftBehind);
  }

  static ReadResult absent(String name) {
    return new ReadResult(
        name,
        Status.ABSENT,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        List.of());
  }

  static ReadResult probed(String name, SessionRecord record, ProbeResult probe) {
    return new ReadResult(
        name,
        probe.isReachable() ? Status.VALID : Status.UNRESPONSIVE,
        Optional.of(record),
        Optional.of(probe),
        Optional.empty(),
        Optional.empty(),
        List.of());
  }

  static ReadResult ownerGone(String name, SessionRecord record, List<Path> leftBehind) {
    return new ReadResult(
        name,
        Status.OWNER_GONE,
        Optional.of(record),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        leftBehind);
  }

  static ReadResult corrupt(String name, Optional<Path> quarantinedAs, String problem) {
    return new ReadResult(
        name,
        Status.CORRUPT,
        Optional.empty(),
        Optional.empty(),
        quarantinedAs,
        Optional.of(problem),
        List.of());
  }

  static ReadResult unsupported(String name, String problem) {
    return new ReadResult(
        name,
        Status.UNSUPPORTED_FORMAT,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.of(problem),
        List.of());
  }

  /**
   * Whether the record may be used to connect.
   *
   * @return {@code true} only for {@link Status#VALID}
   */
  public boolean isValid() {
    return status == Status.VALID;
  }
}
