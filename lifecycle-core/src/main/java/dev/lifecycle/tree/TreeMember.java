package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessIdentity;
import java.util.Objects;
import java.util.Set;

/**
 * A live process that belongs to a tree.
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

  public TreeMember {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(command, "command");
    foundBy = Set.copyOf(foundBy);
  }

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
