package dev.lifecycle.inventory;

import dev.lifecycle.process.ProcessIdentity;
import java.util.Objects;
import java.util.Optional;

/**
 * The owner a found tree names and the verdict on it. Immutable and thread-safe.
 *
 * @param identity the owner's pid, start time and boot id as the tree records them; empty when the
 *     tree names no owner
 * @param verdict whether the owner is alive, proven gone, or neither can be proven
 * @param reason why, in one line a person reads
 */
public record Owner(Optional<ProcessIdentity> identity, OwnerVerdict verdict, String reason) {

  /**
   * Checks the components.
   *
   * @param identity the owner's identity as recorded, or empty
   * @param verdict the verdict
   * @param reason why
   * @throws NullPointerException if a component is {@code null}
   */
  public Owner {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(reason, "reason");
  }
}
