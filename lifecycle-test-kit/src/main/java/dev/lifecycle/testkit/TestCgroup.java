package dev.lifecycle.testkit;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.CgroupHierarchy;
import dev.lifecycle.process.cgroup.CgroupPlacement;
import dev.lifecycle.process.cgroup.OwnedCgroups;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cgroup v2 a leak check runs this JVM in: created where the library places its own cgroups
 * ({@link CgroupPlacement}: the parent configured for the library, {@link
 * Containment#PARENT_PROPERTY}, else the JVM's cgroup, else the root), named as the library names
 * them ({@link OwnedCgroups}, so a dead JVM's empty ones are swept), entered by writing the JVM's
 * pid to its {@code cgroup.procs} (every thread moves), left the same way back. Every process
 * forked while the JVM is inside starts inside, whatever it does later (a new session, a double
 * fork, a cleared environment); only a write to a {@code cgroup.procs} moves it.
 *
 * <p>A JVM is in one cgroup at a time, so checks nest (class, then method; or any check started on
 * the thread that holds the cgroup) but never overlap: a check started on another thread while one
 * is active (concurrent tests) is refused with that reason and runs in the evidence tier, and the
 * check holding the cgroup is told ({@link #shared()}). Thread-safe.
 */
final class TestCgroup {
  private static final Deque<TestCgroup> ACTIVE = new ArrayDeque<>();

  /** Cgroups that still held processes when their check closed; removed once they are empty. */
  private static final Set<TestCgroup> PARKED = ConcurrentHashMap.newKeySet();

  static {
    try {
      Threads.shutdownHook("lifecycle-leak-cgroup-sweep", TestCgroup::sweepParked);
    } catch (IllegalStateException | SecurityException e) {
      // shutting down already: nothing to add
    }
  }

  private final Cgroup cgroup;
  private final Cgroup home;
  private final Thread owner = Thread.currentThread();
  private volatile String sharedWith = "";
  private boolean inside;

  private TestCgroup(Cgroup cgroup, Cgroup home) {
    this.cgroup = cgroup;
    this.home = home;
  }

  /** Why a cgroup could not be used. */
  static final class Unavailable extends Exception {
    private static final long serialVersionUID = 1L;

    Unavailable(String reason) {
      super(reason);
    }
  }

  /**
   * Creates a cgroup for {@code label} and moves this JVM into it.
   *
   * @param parent the enclosing check's cgroup (a method inside its class), or empty
   * @throws Unavailable with the exact reason (no cgroup v2, which path, which errno, or a
   *     concurrent check) when it cannot
   */
  static TestCgroup enter(String label, Optional<TestCgroup> parent) throws Unavailable {
    // The library decides once per JVM (and per mode) where trees get their cgroups, relative to
    // the cgroup the JVM is in at that moment: decide it now, from the JVM's home, never from a
    // check's cgroup that is about to be removed. Trees are then attributed through SpawnedTrees.
    for (Containment.Mode mode : Containment.Mode.values()) {
      Containment.of(mode);
    }
    sweepParked();
    synchronized (ACTIVE) {
      TestCgroup top = ACTIVE.peek();
      // Nesting: inside the enclosing check, or on the thread that holds the cgroup (a Launcher
      // run inside a test). Another thread while a check is active: concurrent tests.
      boolean nested =
          top == null
              || (parent.isPresent() && parent.get() == top)
              || top.owner == Thread.currentThread();
      if (!nested) {
        top.sharedWith = label;
        throw new Unavailable(
            "another leak check of this JVM ("
                + top.cgroup.name()
                + ") holds the JVM's cgroup: tests run concurrently, and a JVM is in one cgroup at"
                + " a time");
      }
      CgroupHierarchy hierarchy =
          CgroupHierarchy.locate()
              .orElseThrow(() -> new Unavailable("no cgroup2 mount in /proc/self/mountinfo"));
      Cgroup home =
          hierarchy
              .ofSelf()
              .orElseThrow(() -> new Unavailable("no 0:: line readable in /proc/self/cgroup"));
      // Nested checks nest their cgroups: the JVM is in the enclosing one now.
      Cgroup under;
      if (top != null) {
        under = home;
      } else {
        CgroupPlacement placement =
            CgroupPlacement.choose(hierarchy, Containment.configuredParent());
        under = placement.parent().orElseThrow(() -> new Unavailable(placement.reason()));
      }
      Cgroup created;
      try {
        created =
            under.createChild(
                OwnedCgroups.newName(
                    ProcessHandle.current().pid(), ProcessPlatform.get().self().startTime()));
      } catch (IOException | RuntimeException e) {
        throw new Unavailable("cannot create a cgroup under " + under + ": " + e.getMessage());
      }
      TestCgroup test = new TestCgroup(created, home);
      try {
        created.enter(ProcessHandle.current().pid());
      } catch (IOException | RuntimeException e) {
        test.remove();
        throw new Unavailable("cannot move this JVM into " + created + ": " + e.getMessage());
      }
      test.inside = true;
      ACTIVE.push(test);
      return test;
    }
  }

  Cgroup cgroup() {
    return cgroup;
  }

  /** The label of a check that overlapped this one, {@code ""} when none did. */
  String shared() {
    return sharedWith;
  }

  /** Moves this JVM back to the cgroup it came from. Idempotent. */
  void leave() throws IOException {
    synchronized (ACTIVE) {
      if (!inside) {
        return;
      }
      home.enter(ProcessHandle.current().pid());
      inside = false;
      ACTIVE.remove(this);
    }
  }

  /** Pids in this cgroup and every cgroup below it (trees the library contains there). */
  Set<Long> members() {
    try {
      return cgroup.members();
    } catch (IOException e) {
      return Set.of(); // removed meanwhile
    }
  }

  /** Moves {@code pid} out to the cgroup the JVM came from (never signals it). */
  void moveOut(long pid) throws IOException {
    home.enter(pid);
  }

  /** Moves what sits directly in this cgroup out (never signals it); sub-cgroups stay. */
  void moveAllOut() {
    try {
      for (long pid : cgroup.processes()) {
        try {
          home.enter(pid);
        } catch (IOException e) {
          // exited meanwhile
        }
      }
    } catch (IOException e) {
      // removed meanwhile
    }
  }

  void freeze(boolean frozen) throws IOException {
    if (frozen) {
      cgroup.freeze();
    } else {
      cgroup.thaw();
    }
  }

  /** SIGKILLs every process of this cgroup and below, atomically with respect to forks. */
  void kill() throws IOException {
    cgroup.kill();
  }

  /** Waits up to {@code within} for nothing to be left here or below (by notification). */
  boolean awaitEmpty(Duration within) {
    try {
      return cgroup.awaitEmpty(within);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Removes this cgroup (with the empty cgroups the library left below it) when nothing is in it;
   * returns whether it is gone.
   */
  boolean remove() {
    try {
      return cgroup.remove();
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** Keeps {@code test} for removal once it is empty (next check, or at JVM exit). */
  static void park(TestCgroup test) {
    PARKED.add(test);
  }

  private static void sweepParked() {
    PARKED.removeIf(TestCgroup::remove);
  }

  @Override
  public String toString() {
    return cgroup.toString();
  }
}
