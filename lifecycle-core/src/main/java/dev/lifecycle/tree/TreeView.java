package dev.lifecycle.tree;

import java.util.List;
import java.util.stream.Stream;

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
   * @param members processes in the tree's own process group (the leader while it runs included)
   * @param escapees processes of the tree that left its group: other group of the same session, or
   *     another session altogether (setsid), found by session, parentage or cookie
   * @throws NullPointerException if a list is {@code null}
   */
  public TreeView {
    members = List.copyOf(members);
    escapees = List.copyOf(escapees);
  }

  /**
   * Members and escapees together.
   *
   * @return the members, then the escapees
   */
  public List<TreeMember> all() {
    return Stream.concat(members.stream(), escapees.stream()).toList();
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
