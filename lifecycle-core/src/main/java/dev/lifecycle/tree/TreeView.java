package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.cgroup.Cgroup;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The live processes of a tree at one moment (zombies excluded). Immutable and thread-safe.
 *
 * @param members processes in the tree's own process group (the leader while it runs included)
 * @param escapees processes of the tree that left its group: other group of the same session, or
 *     another session altogether (setsid), found by session, parentage or cookie
 */
public record TreeView(List<TreeMember> members, List<TreeMember> escapees) {

  /**
   * Copies the lists.
   *
   * @param members see {@link #members()}
   * @param escapees see {@link #escapees()}
   * @throws NullPointerException if a list is {@code null}
   */
  public TreeView {
    members = List.copyOf(members);
    escapees = List.copyOf(escapees);
  }

  /**
   * The live processes of {@code cgroup}: members in the leader's group, the others escapees.
   *
   * @throws IOException if the member list cannot be read
   */
  static TreeView ofCgroup(ProcessPlatform platform, Cgroup cgroup, SupervisedProcess leader)
      throws IOException {
    List<TreeMember> members = new ArrayList<>();
    List<TreeMember> escapees = new ArrayList<>();
    String boot = platform.self().bootId();
    for (long pid : cgroup.members()) {
      // A member that is exiting, or outside this pid namespace, is listed as 0: no pid to read.
      Optional<ProcessInfo> row = pid > 0 ? platform.info(pid) : Optional.empty();
      if (row.isPresent() && !row.get().hasExited()) {
        TreeMember member = member(row.get(), boot, leader);
        (member.foundBy().contains(Discovery.GROUP) ? members : escapees).add(member);
      }
    }
    return new TreeView(members, escapees);
  }

  private static TreeMember member(ProcessInfo row, String boot, SupervisedProcess leader) {
    Set<Discovery> how = EnumSet.of(Discovery.CGROUP);
    if (row.pid() == leader.pid()) {
      how.add(Discovery.LEADER);
    }
    if (leader.processGroupId() > 0 && row.pgid() == leader.processGroupId()) {
      how.add(Discovery.GROUP);
    }
    return TreeMember.of(row, boot, how);
  }

  /**
   * Members and escapees together.
   *
   * @return the members, then the escapees
   */
  public List<TreeMember> all() {
    // No stream: every termination step reads this, also the close of an exited tree.
    List<TreeMember> out = new ArrayList<>(members.size() + escapees.size());
    out.addAll(members);
    out.addAll(escapees);
    return List.copyOf(out);
  }

  /**
   * Whether nothing of the tree is alive.
   *
   * @return {@code true} if there are no members and no escapees
   */
  public boolean isEmpty() {
    return members.isEmpty() && escapees.isEmpty();
  }
}
