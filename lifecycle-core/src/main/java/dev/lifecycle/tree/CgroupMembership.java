package dev.lifecycle.tree;

import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.cgroup.Cgroup;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Membership by the kernel ({@link ContainmentTier#CGROUP}): the tree is its cgroup, so no
 * process-table scan. TERM goes to the group (while pinned) and to every member outside it; the
 * grace and the verification wait for {@code populated 0} by notification; the kill is {@code
 * cgroup.kill} (after a freeze when asked) plus a group SIGKILL, which reaches a process forked
 * between the leader's exec and its move into the cgroup; the emptied cgroup is removed. Single
 * use, one thread.
 */
final class CgroupMembership implements Termination.Membership {
  private static final LazyLogger LOG = LazyLogger.of(CgroupMembership.class);

  private final ProcessPlatform platform;
  private final Cgroup cgroup;
  private final SupervisedProcess leader;
  private final Signaller signaller;
  private final TreeOptions options;
  // Every member read but the leader: the processes whose zombies a JVM that is PID 1 reaps.
  private final Set<ProcessIdentity> seen = new HashSet<>();
  private boolean empty;

  CgroupMembership(
      ProcessPlatform platform,
      Cgroup cgroup,
      SupervisedProcess leader,
      Signaller signaller,
      TreeOptions options) {
    this.platform = platform;
    this.cgroup = cgroup;
    this.leader = leader;
    this.signaller = signaller;
    this.options = options;
  }

  @Override
  public ContainmentTier tier() {
    return ContainmentTier.CGROUP;
  }

  @Override
  public boolean anyAlive() {
    try {
      return cgroup.isPopulated();
    } catch (IOException e) {
      signaller.problem(e.getMessage());
      return true; // unknown: act as if something were left
    }
  }

  @Override
  public void term() {
    // Rows first: a member the group signal ends at once is still named in the report.
    signaller.signal(read().all(), Signal.TERM, true);
  }

  /** Reads the live members, noting each as seen and those outside the group as escapees. */
  private TreeView read() {
    TreeView view;
    try {
      view = TreeView.ofCgroup(platform, cgroup, leader);
    } catch (IOException e) {
      signaller.problem(e.getMessage());
      return new TreeView(List.of(), List.of());
    }
    for (TreeMember member : view.all()) {
      if (member.pid() != leader.pid()) { // the leader's exit status belongs to its own waiter
        seen.add(member.identity());
      }
    }
    signaller.escaped(view.escapees());
    return view;
  }

  @Override
  public void awaitGone(long deadline) {
    empty = awaitEmpty(deadline, true);
  }

  @Override
  public void kill() {
    if (empty || !anyAlive()) {
      return; // the TERM alone emptied it
    }
    List<TreeMember> members = read().all();
    if (options.freezeBeforeKill()) {
      try {
        cgroup.freeze(); // a fork storm stops forking; SIGKILL still ends frozen processes
      } catch (IOException e) {
        if (cgroup.exists()) { // else emptied and removed meanwhile: nothing was left to freeze
          signaller.problem(e.getMessage());
        }
      }
    }
    try {
      if (!cgroup.exists()) {
        return; // emptied and removed (by the tree's onExit) since the last look
      }
      cgroup.kill();
      for (TreeMember member : members) {
        signaller.count(member, Signal.KILL);
      }
    } catch (IOException e) {
      if (!cgroup.exists()) {
        return;
      }
      signaller.problem(e.getMessage());
      signaller.signal(members, Signal.KILL, false); // no cgroup.kill: one by one, by identity
    }
    signaller.group(Signal.KILL); // a window fork that stayed outside the cgroup but in the group
  }

  @Override
  public void verify(long deadline) {
    empty = empty || awaitEmpty(deadline, false);
  }

  @Override
  public List<TreeMember> survivors() {
    if (empty) {
      return List.of();
    }
    List<TreeMember> out = read().all();
    if (out.isEmpty() && anyAlive()) {
      signaller.problem(cgroup + " still populated after " + options.verifyTimeout());
    }
    return out;
  }

  /**
   * Removes the emptied cgroup. An already empty one is being removed by the tree's populated-0
   * handler ({@link CgroupRemoval}): its rmdir waits for the kernel's cgroup lock, which a close of
   * an exited tree need not.
   */
  @Override
  public void afterReap(boolean gone) {
    if (!gone) {
      return;
    }
    try {
      if (!CgroupRemoval.remove(cgroup)) {
        signaller.problem(cgroup + " could not be removed (EBUSY: populated)");
      }
    } catch (IOException e) {
      signaller.problem(e.getMessage());
      LOG.debug("cannot remove {}", cgroup, e);
    }
  }

  /**
   * The identities of the members this termination read, for {@link AdoptedZombies}; never the
   * leader, whose exit status belongs to its own waiter.
   */
  Set<ProcessIdentity> seen() {
    return Set.copyOf(seen);
  }

  /**
   * Waits for {@code populated 0} by notification until {@code deadline}.
   *
   * @param stopOnInterrupt an interrupt during the grace goes straight to the kill
   */
  private boolean awaitEmpty(long deadline, boolean stopOnInterrupt) {
    var onEmpty = cgroup.onEmpty();
    try {
      while (true) {
        try {
          onEmpty.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          return true;
        } catch (InterruptedException e) {
          signaller.interrupt();
          if (stopOnInterrupt) {
            return false;
          }
        }
      }
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      signaller.problem("waiting for " + cgroup + " to empty: " + e.getCause());
      return false;
    } finally {
      onEmpty.cancel(false);
    }
  }
}
