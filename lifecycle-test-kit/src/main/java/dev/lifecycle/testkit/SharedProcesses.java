package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.tree.ProcessTree;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Processes that belong to no single test: a server a suite starts once and shares on purpose, a
 * pool's worker, a lazily started daemon. Declare one where it starts, and no leak check blames it
 * or anything it starts later (its descendants by parentage, the members of a group or session it
 * leads, every process carrying its tree cookie), whatever test was running at the time; nothing
 * declared is ever killed by a check. This is the owner-registration counterpart of {@link
 * LeakOptions.Builder#ignoreIf}: use it where you start the process, the filter where you cannot.
 * JVM-wide and thread-safe.
 */
public final class SharedProcesses {
  private static final Set<ProcessIdentity> PROCESSES = ConcurrentHashMap.newKeySet();
  private static final Set<String> COOKIES = ConcurrentHashMap.newKeySet();

  private SharedProcesses() {}

  /**
   * Declares the process {@code handle} names now (by identity: a reused pid is not declared).
   *
   * @param handle the shared process
   */
  public static void declare(ProcessHandle handle) {
    declare(handle.pid());
  }

  /**
   * Declares {@code process} (by identity).
   *
   * @param process the shared process
   */
  public static void declare(Process process) {
    declare(process.pid());
  }

  /**
   * Declares the process now at {@code pid} (by identity); no-op when there is none.
   *
   * @param pid the shared process's id
   */
  public static void declare(long pid) {
    ProcessPlatform.get().identify(pid).ifPresent(PROCESSES::add);
  }

  /**
   * Declares a whole {@link ProcessTree}: its leader, group, session and cookie.
   *
   * @param tree the shared tree
   */
  public static void declare(ProcessTree tree) {
    Objects.requireNonNull(tree, "tree");
    PROCESSES.add(tree.leaderIdentity());
    COOKIES.add(tree.cookie());
  }

  /**
   * Withdraws a declaration made for {@code handle}'s process.
   *
   * @param handle the process no longer shared
   */
  public static void withdraw(ProcessHandle handle) {
    PROCESSES.removeIf(id -> id.pid() == handle.pid());
  }

  /**
   * Withdraws a tree's declaration.
   *
   * @param tree the tree no longer shared
   */
  public static void withdraw(ProcessTree tree) {
    PROCESSES.remove(tree.leaderIdentity());
    COOKIES.remove(tree.cookie());
  }

  static boolean isEmpty() {
    return PROCESSES.isEmpty() && COOKIES.isEmpty();
  }

  /** Whether {@code p} is declared or belongs to something declared. */
  static boolean covers(ProcessInfo p, ProcessTable table, Optional<String> cookie) {
    if (isSharedTether(p, table.bootId())) {
      return true;
    }
    if (isEmpty()) {
      return false;
    }
    if (cookie.isPresent() && COOKIES.contains(cookie.get())) {
      return true;
    }
    String boot = table.bootId();
    ProcessInfo at = p;
    for (int depth = 0; at != null && depth < 64; depth++) {
      if (isDeclared(at, boot)) {
        return true;
      }
      at = at.ppid() > 1 ? table.get(at.ppid()).orElse(null) : null;
    }
    for (ProcessIdentity id : PROCESSES) {
      if (id.pid() == p.pgid() || id.pid() == p.sid()) {
        Optional<ProcessInfo> leader = table.get(id.pid());
        if (leader.isPresent() && isDeclared(leader.get(), boot)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The library's JVM-wide tether sidecar: shared by design, whichever test started it. */
  private static boolean isSharedTether(ProcessInfo p, String boot) {
    return Tether.sharedSidecar()
        .filter(
            id -> id.pid() == p.pid() && id.match(p.identity(boot)) == ProcessIdentity.Match.SAME)
        .isPresent();
  }

  private static boolean isDeclared(ProcessInfo p, String boot) {
    ProcessIdentity id = p.identity(boot);
    for (ProcessIdentity d : PROCESSES) {
      if (d.pid() == p.pid() && d.match(id) != ProcessIdentity.Match.DIFFERENT) {
        return true;
      }
    }
    return false;
  }
}
