package dev.lifecycle.inventory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A tree lifecycle made, found on this machine with at least one live member. Immutable and
 * thread-safe.
 *
 * @param kind how it was found: its cgroup, its cookie, or as a tether sidecar
 * @param id the cgroup's name, the cookie, or {@code tether-<pid>}
 * @param cgroup the cgroup's directory (CGROUP kind only)
 * @param cookie the cookie its members carry, or {@code ""} when none was read
 * @param owner who owns it and whether that owner is alive
 * @param age how long its oldest member has run, at the first look
 * @param members its live processes, parents before their children where both are members
 * @param detached whether its owner let it go on purpose ({@code ProcessTree.detach()})
 */
public record FoundTree(
    Kind kind,
    String id,
    Optional<Path> cgroup,
    String cookie,
    Owner owner,
    Duration age,
    List<Member> members,
    boolean detached) {

  /** How a tree was found, which is also how exactly its membership is known. */
  public enum Kind {
    /** An owned cgroup ({@code lifecycle-<owner pid>-<owner start>-...}): membership is exact. */
    CGROUP,
    /** Processes carrying one cookie, and their descendants: exact for what carries the cookie. */
    SESSION,
    /** A tether sidecar: shown, never reaped (it ends its own trees when its owner dies). */
    TETHER
  }

  /**
   * Checks the components and copies {@code members}.
   *
   * @param kind how it was found
   * @param id its name
   * @param cgroup the cgroup's directory, CGROUP kind only
   * @param cookie the cookie, or {@code ""}
   * @param owner the owner and its verdict
   * @param age how long its oldest member has run
   * @param members its live processes
   * @param detached whether it was let go on purpose
   * @throws NullPointerException if a component is {@code null}
   */
  public FoundTree {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(cgroup, "cgroup");
    Objects.requireNonNull(cookie, "cookie");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(age, "age");
    members = List.copyOf(members);
  }

  /**
   * Why {@link Inventory#reap} would end this tree, or why it would not.
   *
   * @param includeDetached whether detached trees count as orphans
   * @return empty when it would be ended, else the reason it is left alone
   */
  public Optional<String> whyKept(boolean includeDetached) {
    if (kind == Kind.TETHER) {
      return Optional.of("a tether sidecar ends its own trees");
    }
    if (owner.verdict() == OwnerVerdict.ALIVE) {
      return Optional.of("owner alive");
    }
    if (owner.verdict() == OwnerVerdict.NOT_PROVABLE) {
      return Optional.of("owner not provably gone: " + owner.reason());
    }
    if (detached && !includeDetached) {
      return Optional.of("detached on purpose (--include-detached to end it)");
    }
    return Optional.empty();
  }
}
