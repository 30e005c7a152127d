package dev.lifecycle.process.cgroup;

import dev.lifecycle.internal.Ascii;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.internal.Unguessable;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Names of the cgroups this library creates, which carry their owner's identity, and the cleanup of
 * those whose owner is gone. A name is {@code lifecycle-<owner pid>-<owner start ticks>-<n>-<r>}
 * ({@code n} a per-JVM counter, {@code r} random hex): unique per creation, and it says who owns
 * it. Only EMPTY cgroups of a dead owner are ever removed, so a live owner's cgroup and one not
 * named by us are never touched. Whether an owner is gone is the caller's judgement ({@link
 * OwnerCheck}), made on proof, so this mechanism knows nothing of processes. Thread-safe.
 */
public final class OwnedCgroups {
  /** Every cgroup the library creates starts with this. */
  public static final String PREFIX = "lifecycle-";

  private static final LazyLogger LOG = LazyLogger.of(OwnedCgroups.class);

  private static final AtomicLong COUNTER = new AtomicLong();

  private OwnedCgroups() {}

  /**
   * A fresh name owned by the process {@code ownerPid} started at {@code ownerStartTicks}.
   *
   * @param ownerPid the pid of the process that will own the cgroup, usually this JVM
   * @param ownerStartTicks its start time in {@code /proc} clock ticks; a negative (unknown) one is
   *     recorded as 0
   * @return {@code lifecycle-<pid>-<start>-<counter>-<random>}, unique within this JVM
   */
  public static String newName(long ownerPid, long ownerStartTicks) {
    if (ownerPid <= 0) {
      throw new IllegalArgumentException("owner pid must be positive: " + ownerPid);
    }
    return PREFIX
        + ownerPid
        + "-"
        + Math.max(0, ownerStartTicks)
        + "-"
        + COUNTER.incrementAndGet()
        + "-"
        + Ascii.hex8((int) Unguessable.nextLong());
  }

  /** Judges, on proof only, whether the owner a name records is gone. */
  @FunctionalInterface
  public interface OwnerCheck {
    /**
     * Whether the process {@code pid} that started at {@code startTicks} is proven gone.
     *
     * @param pid the owner's pid, positive
     * @param startTicks the owner's start time in {@code /proc} clock ticks, as recorded
     * @return {@code true} only on proof (no such process, a zombie, another start time)
     */
    boolean isProvenGone(long pid, long startTicks);
  }

  /**
   * The owner a name of ours records (pid and start ticks), or empty for other names.
   *
   * @param name a cgroup directory name
   * @return {@code {pid, startTicks}}, or empty when {@code name} is not one of ours
   */
  public static Optional<long[]> owner(String name) {
    // lifecycle-<pid: 1-10 digits>-<start: 1-20 digits>-<counter: digits>-<8 lower-case hex>, read
    // by hand: a regular expression would be compiled on a short-lived program's first spawn
    if (!name.startsWith(PREFIX)) {
      return Optional.empty();
    }
    int pidEnd = digitsThenDash(name, PREFIX.length(), 10);
    int startEnd = pidEnd < 0 ? -1 : digitsThenDash(name, pidEnd + 1, 20);
    int counterEnd = startEnd < 0 ? -1 : digitsThenDash(name, startEnd + 1, name.length());
    if (counterEnd < 0
        || name.length() != counterEnd + 9
        || !Ascii.isLowerHex(name, counterEnd + 1)) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new long[] {
            Long.parseLong(name, PREFIX.length(), pidEnd, 10),
            Long.parseLong(name, pidEnd + 1, startEnd, 10)
          });
    } catch (NumberFormatException e) {
      return Optional.empty(); // 20 digits beyond Long.MAX_VALUE
    }
  }

  /** Where the dash after 1 to {@code max} ASCII digits from {@code from} is, or -1. */
  private static int digitsThenDash(String name, int from, int max) {
    int end = Ascii.digitsEnd(name, from);
    return end > from && end - from <= max && end < name.length() && name.charAt(end) == '-'
        ? end
        : -1;
  }

  /**
   * Whether the owner named by {@code name} is proven gone according to {@code gone}.
   *
   * @param name a cgroup directory name
   * @param gone judges the recorded owner
   * @return {@code true} only on proof; {@code false} for names that are not ours
   */
  public static boolean ownerGone(String name, OwnerCheck gone) {
    Optional<long[]> owner = owner(name);
    return owner.isPresent()
        && owner.get()[0] > 0
        && gone.isProvenGone(owner.get()[0], owner.get()[1]);
  }

  /**
   * Removes the empty cgroups of ours directly under {@code parent} whose owner is proven gone
   * (left by a JVM that was SIGKILLed before it removed them). Populated ones are left silently: a
   * tree may outlive the JVM that started it by design (a broker a client started, a worker), its
   * processes are its own or its tether's business, and removing would fail anyway; a log line for
   * each would make every later spawning JVM start slf4j.
   *
   * @param parent the cgroup whose direct children are looked at
   * @param gone judges the owners
   * @return how many were removed
   */
  public static int removeStale(Cgroup parent, OwnerCheck gone) {
    int removed = 0;
    try {
      for (Cgroup child : parent.children()) {
        if (!child.name().startsWith(PREFIX) || !ownerGone(child.name(), gone)) {
          continue;
        }
        try {
          if (!child.isPopulated() && child.remove()) {
            removed++;
          }
        } catch (IOException e) {
          LOG.debug("cannot remove stale cgroup {}", child, e);
        }
      }
    } catch (IOException e) {
      LOG.debug("cannot list {} for stale cgroups", parent, e);
    }
    return removed;
  }

  /**
   * Removes {@code own}, the cgroup this process {@code self} runs in, when it is one of ours whose
   * creator is proven gone and nothing else is in it or below it but {@code self} and its {@code
   * companions} (its tether sidecar, which ends with it): they move to the parent cgroup, then
   * {@code own} is removed with its empty descendants (the cgroups of trees it has closed, if not
   * removed yet). For the end of a tree that outlives its creator (a broker a CLI started): once
   * its creator has exited, nobody else would remove the cgroup before the next lifecycle JVM's
   * first spawn under the same parent. Anything that does not hold leaves everything as it is.
   *
   * @param own the cgroup this process is in
   * @param self this process's pid
   * @param companions processes of this one that end with it and may move with it
   * @param gone judges the creator the name records
   * @return true when {@code own} was removed
   */
  public static boolean leaveIfOrphaned(
      Cgroup own, long self, Set<Long> companions, OwnerCheck gone) {
    if (self <= 1 || !own.name().startsWith(PREFIX) || !ownerGone(own.name(), gone)) {
      return false;
    }
    try {
      Set<Long> members = own.members();
      if (!members.contains(self)) {
        return false;
      }
      for (long member : members) {
        if (member != self && !companions.contains(member)) {
          return false;
        }
      }
      Cgroup parent = Cgroup.at(own.path().getParent());
      for (long member : members) {
        if (member != self) {
          parent.enterUnlessExited(member);
        }
      }
      parent.enter(self);
      return own.remove();
    } catch (IOException | RuntimeException e) {
      LOG.debug("cannot leave and remove {}", own, e);
      return false;
    }
  }
}
