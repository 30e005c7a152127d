package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SupervisedProcess;
import java.util.Objects;

/**
 * What makes a process part of a tree.
 *
 * @param anchor the process the tree hangs from (the leader, or this JVM for self-termination);
 *     while its pid still names it (running or an unreaped zombie), the group and session ids below
 *     cannot have been reused, so membership by id is trusted only then
 * @param anchorIsMember whether the anchor itself is to be signalled (false for this JVM)
 * @param groupId the process group that counts as the tree's own; processes outside it are escapees
 * @param ownsGroup whether every member of {@code groupId} belongs to the tree (false when the
 *     group is shared, e.g. the JVM's group when no new session could be created)
 * @param sessionId the session whose members belong to the tree, or {@code -1}
 * @param cookie the environment cookie descendants inherit, or {@code ""} for none
 */
record Scope(
    ProcessIdentity anchor,
    boolean anchorIsMember,
    long groupId,
    boolean ownsGroup,
    long sessionId,
    String cookie) {

  Scope {
    Objects.requireNonNull(anchor, "anchor");
    Objects.requireNonNull(cookie, "cookie");
  }

  /** A spawned tree's: its leader, its group (else the JVM's, shared), session and cookie. */
  static Scope of(ProcessPlatform platform, SupervisedProcess leader) {
    boolean ownGroup = leader.processGroupId() > 0;
    return new Scope(
        leader.identity(),
        true,
        ownGroup ? leader.processGroupId() : platform.selfProcessGroup(),
        ownGroup,
        leader.isSessionLeader() ? leader.pid() : -1,
        leader.treeCookie());
  }
}
