package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.SpawnOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Which processes make up a "tree" for an assertion: a process and its descendants, a process
 * group, a session, or every process carrying a tree cookie. Immutable.
 */
public final class TreeSelector {
  private enum Kind {
    ROOT,
    GROUP,
    SESSION,
    COOKIE,
    THIS_JVM
  }

  private final Kind kind;
  private final long id;
  private final String cookie;

  private TreeSelector(Kind kind, long id, String cookie) {
    this.kind = kind;
    this.id = id;
    this.cookie = cookie;
  }

  /**
   * {@code pid} and its descendants by parentage (re-parented escapees are not included).
   *
   * @param pid the root's pid, positive
   * @return a selector of the root and its descendants
   */
  public static TreeSelector root(long pid) {
    return new TreeSelector(Kind.ROOT, requirePositive(pid), "");
  }

  /**
   * Every member of process group {@code pgid}.
   *
   * @param pgid the process group id, positive
   * @return a selector of the group's members
   */
  public static TreeSelector group(long pgid) {
    return new TreeSelector(Kind.GROUP, requirePositive(pgid), "");
  }

  /**
   * Every member of session {@code sid}.
   *
   * @param sid the session id, positive
   * @return a selector of the session's members
   */
  public static TreeSelector session(long sid) {
    return new TreeSelector(Kind.SESSION, requirePositive(sid), "");
  }

  /**
   * Every process whose environment holds {@link SpawnOptions#COOKIE_VARIABLE}{@code =cookie}:
   * finds escapees (setsid, double fork) that left the group.
   *
   * @param cookie the tree cookie, not blank
   * @return a selector of the processes carrying the cookie
   * @throws IllegalArgumentException if {@code cookie} is blank
   */
  public static TreeSelector cookie(String cookie) {
    Objects.requireNonNull(cookie, "cookie");
    if (cookie.isBlank()) {
      throw new IllegalArgumentException("cookie must not be blank");
    }
    return new TreeSelector(Kind.COOKIE, -1, cookie);
  }

  /**
   * Every descendant of this JVM by parentage (the JVM itself excluded).
   *
   * @return a selector of this JVM's descendants
   */
  public static TreeSelector descendantsOfThisJvm() {
    return new TreeSelector(Kind.THIS_JVM, -1, "");
  }

  /**
   * The members present in {@code table}, zombies included.
   *
   * @param table a snapshot of the process table
   * @param platform reads environments for a cookie selector
   * @return the selected processes found in {@code table}
   */
  public List<ProcessInfo> members(ProcessTable table, ProcessPlatform platform) {
    return switch (kind) {
      case ROOT -> {
        List<ProcessInfo> out = new ArrayList<>();
        table.get(id).ifPresent(out::add);
        out.addAll(table.descendants(id));
        yield out;
      }
      case GROUP -> table.group(id);
      case SESSION -> table.session(id);
      case COOKIE -> {
        Set<Long> pids = platform.findByEnvironment(SpawnOptions.COOKIE_VARIABLE, cookie);
        yield table.filter(p -> pids.contains(p.pid()));
      }
      case THIS_JVM -> table.descendants(platform.self().pid());
    };
  }

  private static long requirePositive(long id) {
    if (id <= 0) {
      throw new IllegalArgumentException("id must be positive: " + id);
    }
    return id;
  }

  @Override
  public String toString() {
    return switch (kind) {
      case ROOT -> "tree of pid " + id;
      case GROUP -> "process group " + id;
      case SESSION -> "session " + id;
      case COOKIE -> "processes with " + SpawnOptions.COOKIE_VARIABLE + "=" + cookie;
      case THIS_JVM -> "descendants of this JVM";
    };
  }
}
