package dev.lifecycle.inventory;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.cgroup.Cgroup;
import java.io.IOException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Proves, just before a tree is ended, that the members a caller hands in are still the tree's: in
 * its cgroup (whose name is the tree's), or carrying its cookie or descended from a process that
 * does. A tree as {@link Inventory#take()} found it passes; a stale or hand-made one whose live
 * members are not proven is refused, so no process outside the tree is ever signalled.
 */
final class MemberProof {
  private final ProcessPlatform platform;

  MemberProof(ProcessPlatform platform) {
    this.platform = platform;
  }

  /** The process termination starts from, proven a member; or empty, with the reason in why. */
  Optional<ProcessIdentity> anchor(FoundTree tree, StringBuilder why) {
    return tree.kind() == FoundTree.Kind.CGROUP ? inCgroup(tree, why) : byCookie(tree, why);
  }

  private Optional<ProcessIdentity> inCgroup(FoundTree tree, StringBuilder why) {
    if (tree.cgroup().isEmpty()
        || !tree.cgroup().get().getFileName().toString().equals(tree.id())) {
      why.append("its cgroup directory is not named ").append(tree.id());
      return Optional.empty();
    }
    Set<Long> now;
    try {
      now = Cgroup.at(tree.cgroup().get()).members();
    } catch (IOException | RuntimeException e) {
      why.append("cannot read its cgroup: ").append(e.getMessage());
      return Optional.empty();
    }
    ProcessIdentity anchor = null;
    for (Member m : tree.members()) {
      if (platform.probe(m.identity()) != Liveness.ALIVE) {
        continue; // gone or reused since: not signalled by identity, not a member to prove
      }
      if (!now.contains(m.pid())) {
        why.append("pid ").append(m.pid()).append(" is not proven a member: not in its cgroup");
        return Optional.empty();
      }
      if (anchor == null) {
        anchor = m.identity();
      }
    }
    if (anchor == null) {
      why.append("no member left");
    }
    return Optional.ofNullable(anchor);
  }

  private Optional<ProcessIdentity> byCookie(FoundTree tree, StringBuilder why) {
    if (tree.cookie().isEmpty() || !tree.cookie().equals(tree.id())) {
      why.append("a SESSION tree is named by the cookie its members carry");
      return Optional.empty();
    }
    ProcessTable table = platform.snapshot();
    String boot = table.bootId();
    Set<Long> carriers = new HashSet<>();
    ProcessIdentity anchor = null;
    for (Member m : tree.members()) {
      if (carries(m, tree.cookie(), table, boot)) {
        carriers.add(m.pid());
        if (anchor == null) {
          anchor = m.identity(); // members come oldest first
        }
      }
    }
    for (Member m : tree.members()) {
      if (carriers.contains(m.pid()) || platform.probe(m.identity()) != Liveness.ALIVE) {
        continue;
      }
      if (!descendsFrom(m.pid(), carriers, table)) {
        why.append("pid ")
            .append(m.pid())
            .append(" is not proven a member: it carries no cookie of the tree's and descends")
            .append(" from no process that does");
        return Optional.empty();
      }
    }
    if (anchor == null) {
      why.append("no member carries its cookie any more");
    }
    return Optional.ofNullable(anchor);
  }

  private boolean carries(Member m, String cookie, ProcessTable table, String boot) {
    Optional<ProcessInfo> row = table.get(m.pid());
    return row.isPresent()
        && !row.get().hasExited()
        && row.get().startTime() == m.identity().startTime()
        && m.identity().match(row.get().identity(boot)) != ProcessIdentity.Match.DIFFERENT
        && platform
            .environmentValue(m.pid(), SpawnOptions.COOKIE_VARIABLE)
            .orElse("")
            .equals(cookie);
  }

  private static boolean descendsFrom(long pid, Set<Long> carriers, ProcessTable table) {
    Set<Long> seen = new HashSet<>();
    long next = table.get(pid).map(ProcessInfo::ppid).orElse(0L);
    while (next > 1 && seen.add(next)) {
      if (carriers.contains(next)) {
        return true;
      }
      next = table.get(next).map(ProcessInfo::ppid).orElse(0L);
    }
    return false;
  }
}
