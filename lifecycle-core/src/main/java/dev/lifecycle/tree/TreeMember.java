package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A live process that belongs to a tree. Immutable and thread-safe.
 *
 * @param identity who it is; every signal to it is checked against this
 * @param processGroupId its process group when last seen
 * @param sessionId its session when last seen
 * @param command its short command name
 * @param foundBy every way it was found, first seen included
 */
public record TreeMember(
    ProcessIdentity identity,
    long processGroupId,
    long sessionId,
    String command,
    Set<Discovery> foundBy) {

  /**
   * Checks the components and copies {@code foundBy}.
   *
   * @param identity who it is; every signal to it is checked against this
   * @param processGroupId its process group when last seen
   * @param sessionId its session when last seen
   * @param command its short command name
   * @param foundBy every way it was found, first seen included
   * @throws NullPointerException if {@code identity}, {@code command} or {@code foundBy} is {@code
   *     null}
   */
  public TreeMember {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(command, "command");
    foundBy = Set.copyOf(foundBy);
  }

  /** The member a process-table row describes, found the ways {@code how} names. */
  static TreeMember of(ProcessInfo row, String bootId, Set<Discovery> how) {
    return new TreeMember(row.identity(bootId), row.pgid(), row.sid(), row.command(), how);
  }

  /** This member, also found the ways {@code other} was (the same process seen again). */
  TreeMember foundAlsoBy(TreeMember other) {
    if (foundBy.containsAll(other.foundBy)) {
      return this;
    }
    Set<Discovery> union = EnumSet.noneOf(Discovery.class);
    union.addAll(foundBy);
    union.addAll(other.foundBy);
    return new TreeMember(identity, processGroupId, sessionId, command, union);
  }

  /**
   * The member's pid, from its {@code identity}.
   *
   * @return the pid
   */
  public long pid() {
    return identity.pid();
  }

  @Override
  public String toString() {
    return pid()
        + "("
        + command
        + ", pgid "
        + processGroupId
        + ", sid "
        + sessionId
        + ", "
        + foundBy
        + ")";
  }
}
