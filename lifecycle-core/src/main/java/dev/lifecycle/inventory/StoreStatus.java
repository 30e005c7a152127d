package dev.lifecycle.inventory;

import dev.lifecycle.record.ReadResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The records of one record store, each judged without side effects ({@code RecordStore.look}):
 * nothing reclaimed, quarantined, swept or locked. Immutable and thread-safe.
 *
 * @param directory the store's directory
 * @param records one result per record file, by name
 * @param problem why the store could not be read (absent, unsafe, unreadable), or empty
 */
public record StoreStatus(Path directory, List<ReadResult> records, Optional<String> problem) {

  /**
   * Checks the components and copies {@code records}.
   *
   * @param directory the store's directory
   * @param records the results
   * @param problem why the store could not be read, or empty
   * @throws NullPointerException if a component is {@code null}
   */
  public StoreStatus {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(problem, "problem");
    records = List.copyOf(records);
  }
}
