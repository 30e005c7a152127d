package dev.lifecycle.tree;

import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * PID 1 hygiene: when the JVM is the init of its PID namespace (a container without one), every
 * orphan of a tree is re-parented to the JVM, and nothing but the JVM can collect it once it dies.
 * After a tree's termination, its zombies whose parent is the JVM are reaped one by one through
 * {@link ProcessPlatform#reapAdopted}. Thread-safe.
 *
 * <p>Only tree processes are candidates: an escapee the termination saw (by its exact identity), or
 * a zombie in the tree's session or an escapee's that does not lead it. The JVM's own children, the
 * JDK's included, stay in the JVM's session (or lead one of their own), and a session id is never
 * reused while one of its members exists, so no exit status the JDK waits for can be taken.
 */
final class AdoptedZombies {
  private static final LazyLogger LOG = LazyLogger.of(AdoptedZombies.class);

  private static final AtomicBoolean WARNED = new AtomicBoolean();
  private static final Duration DYING_BOUND = Duration.ofSeconds(2);
  private static final Duration DYING_POLL = Duration.ofMillis(5);

  private AdoptedZombies() {}

  /** Whether the JVM is PID 1 of its namespace and must reap the orphans of the trees it ends. */
  static boolean isInit(ProcessPlatform platform) {
    return platform.self().pid() == 1;
  }

  /** Says once per JVM, at WARN, that it runs as PID 1 and what to do about it. */
  static void warnOnceIfInit(ProcessPlatform platform) {
    if (isInit(platform) && WARNED.compareAndSet(false, true)) {
      LOG.warn(
          "this JVM runs as PID 1: every orphan of its PID namespace is re-parented to it, and the"
              + " JDK reaps only its own children. lifecycle reaps the zombies of the trees it"
              + " terminates (native platform only), nothing else; run the JVM under an init: tini,"
              + " `docker run --init`, or Kubernetes `shareProcessNamespace: true`");
    }
  }

  /**
   * Reaps the zombies of a terminated tree that were re-parented to the JVM.
   *
   * @param sessionId the tree's session, or {@code -1} when it shares the JVM's (nothing to reap)
   * @param members identities of members the termination read (CGROUP tier: every process seen in
   *     the tree's cgroup, also one that left its session after it was read); empty otherwise
   * @return how many were reaped
   */
  static int reap(
      ProcessPlatform platform,
      long sessionId,
      TerminationReport report,
      Set<ProcessIdentity> members) {
    if (!isInit(platform)) {
      return 0;
    }
    Set<ProcessIdentity> escapees = new HashSet<>(members);
    Set<Long> sessions = new HashSet<>();
    if (sessionId > 0) {
      sessions.add(sessionId);
    }
    for (TreeMember escapee : report.escapees()) {
      escapees.add(escapee.identity());
      if (escapee.sessionId() == escapee.pid()) { // its own session (setsid), not a shared one
        sessions.add(escapee.sessionId());
      }
    }
    long self = platform.self().pid();
    sessions.remove(self); // never the JVM's own session
    sessions.remove(1L); // init's (every other one added is positive); no lambda: see Termination
    if (sessions.isEmpty() && escapees.isEmpty()) { // escapees: also every member read
      return 0;
    }
    int reaped = 0;
    // A killed process leaves its cgroup before it becomes a zombie, and before its children are
    // handed to the JVM, so a complete termination can return while some are still exiting: poll
    // those few (bounded) until they can be reaped.
    long deadline = System.nanoTime() + DYING_BOUND.toNanos();
    while (true) {
      ProcessTable table = platform.snapshot();
      int dying = 0;
      for (ProcessInfo p : table.all()) {
        ProcessIdentity identity = p.identity(table.bootId());
        boolean ofTree =
            escapees.contains(identity) || (p.pid() != p.sid() && sessions.contains(p.sid()));
        if (!ofTree) {
          continue;
        }
        if (!p.hasExited()) {
          dying++; // re-parented to the JVM at the latest when its own parent has exited
        } else if (p.ppid() == self) {
          if (platform.reapAdopted(identity)) {
            reaped++;
          }
        } else if (parentOfTree(table, p, escapees, sessions)) {
          dying++; // its parent, ended with the tree, has yet to hand it to the JVM
        }
      }
      if (dying == 0 || !report.noSurvivorSeen() || System.nanoTime() > deadline) {
        break;
      }
      LockSupport.parkNanos(DYING_POLL.toNanos());
    }
    if (reaped > 0) {
      LOG.debug("reaped {} adopted zombie(s) of the tree of session {}", reaped, sessionId);
    }
    return reaped;
  }

  /** Whether the parent of {@code zombie} is a process of the tree, a session's leader included. */
  private static boolean parentOfTree(
      ProcessTable table, ProcessInfo zombie, Set<ProcessIdentity> escapees, Set<Long> sessions) {
    ProcessInfo parent = table.get(zombie.ppid()).orElse(null);
    return parent != null
        && (sessions.contains(parent.sid()) || escapees.contains(parent.identity(table.bootId())));
  }
}
