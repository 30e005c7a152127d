package dev.lifecycle.inventory;

import dev.lifecycle.internal.DetachMarks;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.orphans.OrphanEnding;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The sweep: ends, staged, exactly the trees whose owner is proven gone, each re-judged just
 * before; leaves every other one alone and says why.
 */
final class Reaper {
  private static final OrphanEnding.Engine<TerminationReport> ORPHANS =
      OrphanEnding.engine(TerminationReport.class);

  private final ProcessPlatform platform;
  private final Owners owners;
  private final MemberProof proof;

  Reaper(ProcessPlatform platform, Owners owners) {
    this.platform = platform;
    this.owners = owners;
    this.proof = new MemberProof(platform);
  }

  List<ReapReport> reap(List<FoundTree> trees, Duration grace, boolean includeDetached) {
    Set<String> marks = DetachMarks.all(); // before the look that proves them stale
    List<ReapReport> reports = end(trees, grace, includeDetached);
    DetachMarks.remove(stale(marks));
    return reports;
  }

  /**
   * The marks of {@code marks} whose tree has no live member: no live process carries the key as
   * its cookie and no owned cgroup of that name holds one. Keys are unique per tree, so a tree gone
   * now cannot come back under its key.
   */
  private Set<String> stale(Set<String> marks) {
    if (marks.isEmpty()) {
      return marks;
    }
    FirstLook look = FirstLook.take(platform);
    Set<String> live = new HashSet<>(look.cookieOf.values());
    live.addAll(CgroupTrees.find(platform, look).names());
    Set<String> out = new HashSet<>(marks);
    out.removeAll(live);
    return out;
  }

  private List<ReapReport> end(List<FoundTree> trees, Duration grace, boolean includeDetached) {
    Set<Long> protectedPids = selfAndAncestors();
    List<ReapReport> reports = new ArrayList<>();
    for (FoundTree tree : trees) {
      Optional<String> kept = tree.whyKept(includeDetached);
      if (kept.isEmpty()) {
        kept = stillOrphaned(tree, protectedPids);
      }
      if (kept.isEmpty()) {
        kept = holdsAnotherOwnersTree(tree, trees);
      }
      StringBuilder why = new StringBuilder();
      Optional<ProcessIdentity> anchor =
          kept.isPresent() ? Optional.empty() : proof.anchor(tree, why);
      if (kept.isEmpty() && anchor.isEmpty()) {
        kept = Optional.of(why.toString());
      }
      if (kept.isPresent()) {
        reports.add(new ReapReport(tree, Optional.empty(), "left alone: " + kept.get()));
        continue;
      }
      ProcessIdentity oldest = anchor.orElseThrow();
      String label = tree.kind() + " tree " + tree.id();
      TerminationReport report =
          tree.kind() == FoundTree.Kind.CGROUP
              ? ORPHANS.endCgroup(platform, tree.cgroup().orElseThrow(), oldest, grace, label)
              : ORPHANS.endByCookie(platform, tree.cookie(), oldest, grace, label);
      String outcome =
          report.survivors().isEmpty()
              ? "ended by "
                  + report.endedBy()
                  + " ("
                  + report.killed().size()
                  + " killed), owner "
                  + tree.owner().reason()
              : "NOT ended, survivors: " + report.survivors();
      reports.add(new ReapReport(tree, Optional.of(report), outcome));
    }
    return reports;
  }

  /** Empty when the tree is still what was found and may be ended; else why not. */
  private Optional<String> stillOrphaned(FoundTree tree, Set<Long> protectedPids) {
    for (Member m : tree.members()) {
      if (protectedPids.contains(m.pid())) {
        return Optional.of("holds this process or one of its ancestors (pid " + m.pid() + ")");
      }
    }
    ProcessTable now = platform.snapshot();
    Owner again =
        tree.kind() == FoundTree.Kind.CGROUP
            ? owners.cgroupOwner(tree.id(), now.bootId())
            : owners.cookieOwner(tree.id(), now.bootId());
    if (again.verdict() != OwnerVerdict.GONE) {
      return Optional.of("owner no longer proven gone: " + again.reason());
    }
    if (tree.members().isEmpty()) {
      return Optional.of("no member left");
    }
    return Optional.empty();
  }

  /**
   * Why {@code tree} must be left alone because ending it would end a tree whose owner is not
   * proven gone (a lifecycle program inside it that runs trees of its own, e.g. a broker its
   * creator left running), or empty.
   */
  private Optional<String> holdsAnotherOwnersTree(FoundTree tree, List<FoundTree> all) {
    Set<Long> reach = new HashSet<>();
    if (tree.kind() == FoundTree.Kind.CGROUP) {
      try {
        reach.addAll(Cgroup.at(tree.cgroup().orElseThrow()).members());
      } catch (IOException | RuntimeException e) {
        return Optional.of("cannot read its cgroup: " + e.getMessage());
      }
    } else {
      ProcessTable table = platform.snapshot();
      for (Member m : tree.members()) {
        reach.add(m.pid());
        for (ProcessInfo d : table.descendants(m.pid())) {
          reach.add(d.pid());
        }
      }
    }
    // Its own members are its own; what else it reaches belongs to trees nested in it.
    for (Member m : tree.members()) {
      reach.remove(m.pid());
    }
    for (FoundTree other : all) {
      if (other == tree || other.owner().verdict() == OwnerVerdict.GONE) {
        continue;
      }
      for (Member m : other.members()) {
        if (reach.contains(m.pid())) {
          return Optional.of(
              "holds " + other.kind() + " tree " + other.id() + " of an owner not proven gone");
        }
      }
    }
    return Optional.empty();
  }

  private Set<Long> selfAndAncestors() {
    ProcessTable table = platform.snapshot();
    Set<Long> out = new HashSet<>();
    long pid = platform.self().pid();
    while (pid > 1 && out.add(pid)) {
      pid = table.get(pid).map(ProcessInfo::ppid).orElse(0L);
    }
    return out;
  }
}
