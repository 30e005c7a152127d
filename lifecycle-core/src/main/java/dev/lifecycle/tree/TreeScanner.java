package dev.lifecycle.tree;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessPlatform.EnvironmentEntry;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.SpawnOptions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds a tree's live processes in one snapshot. Remembers every process it has ever attributed to
 * the tree (by identity), so descendants stay found after the leader was reaped or an intermediate
 * parent died and they were re-parented to init. What one scan could not settle (a process inside
 * execve, suspects) belongs to that scan's {@link Scan}, so concurrent scans (a {@code view()}
 * while a termination runs) never overwrite each other's answer. Thread-safe.
 *
 * <p>Plain loops, no lambdas or streams: a short-lived program's one termination runs this where
 * each first lambda is a class generated and linked.
 */
final class TreeScanner {
  private static final String COOKIE = SpawnOptions.COOKIE_VARIABLE;

  private final ProcessPlatform platform;
  private final Scope scope;
  private final long selfPid;
  private final Set<ProcessIdentity> known = ConcurrentHashMap.newKeySet();

  /** The parent of every kernel thread, whose environment is always empty. */
  private static final long KTHREADD = 2;

  private final Set<ProcessIdentity> cookieKnown = ConcurrentHashMap.newKeySet();
  private final Set<ProcessIdentity> cookieRead = ConcurrentHashMap.newKeySet();

  /**
   * One scan's answer.
   *
   * @param view the members and escapees alive at the scan
   * @param unsettled the cookie search met a process inside execve (environment not laid out yet):
   *     ask again before trusting that nothing else carries the cookie
   * @param suspects what the cookie search could not rule out: started after the anchor, not found
   *     by any means, with an environment that is empty, rewritten or unreadable; one line each
   *     (pid, command, why); empty for scans without the cookie search
   */
  record Scan(TreeView view, boolean unsettled, List<String> suspects) {}

  /** What the cookie search of one scan found. */
  private static final class CookieSearch {
    final Set<Long> carriers = new HashSet<>();
    final Map<Long, EnvironmentEntry> unknown = new LinkedHashMap<>();
    boolean pending;
  }

  TreeScanner(ProcessPlatform platform, Scope scope) {
    this.platform = platform;
    this.scope = scope;
    this.selfPid = platform.self().pid();
  }

  Scope scope() {
    return scope;
  }

  /**
   * Scans the process table. The cookie search reads every process's environment, so it is left out
   * of frequent polls ({@code withCookie = false}); processes it found before stay known.
   */
  Scan scan(boolean withCookie) {
    return scan(platform.snapshot(), withCookie);
  }

  /** {@link #scan(boolean)} on a snapshot shared with others (the watchdog's tick). */
  Scan scan(ProcessTable table, boolean withCookie) {
    String boot = table.bootId();
    ProcessInfo anchorRow = table.get(scope.anchor().pid()).orElse(null);
    if (anchorRow != null
        && scope.anchor().match(anchorRow.identity(boot)) == ProcessIdentity.Match.DIFFERENT) {
      anchorRow = null;
    }
    boolean pinned = anchorRow != null;
    CookieSearch search =
        withCookie && !scope.cookie().isEmpty()
            ? cookieCarriers(table, anchorRow)
            : new CookieSearch();
    Set<Long> cookieCarriers = search.carriers;

    Map<Long, Set<Discovery>> found = new LinkedHashMap<>();
    if (pinned && scope.anchorIsMember()) {
      add(found, anchorRow.pid(), Discovery.LEADER);
    }
    Set<Long> remembered = new HashSet<>();
    for (ProcessInfo row : table.all()) {
      if (known.contains(row.identity(boot))) {
        remembered.add(row.pid());
      }
      // Ids are only trusted while the anchor pins them: afterwards they may name a stranger.
      if (pinned && scope.ownsGroup() && row.pgid() == scope.groupId()) {
        add(found, row.pid(), Discovery.GROUP);
      }
      if (pinned && scope.sessionId() > 0 && row.sid() == scope.sessionId()) {
        add(found, row.pid(), Discovery.SESSION);
      }
      if (cookieCarriers.contains(row.pid())) {
        add(found, row.pid(), Discovery.COOKIE);
      }
    }
    // Parentage: descendants of the anchor and of everything found (zombies keep their children's
    // ppid until reaped, so they count as roots too).
    Deque<Long> roots = new ArrayDeque<>();
    for (long pid : found.keySet()) {
      roots.add(pid); // not addAll: ArrayDeque's links a method reference
    }
    for (long pid : remembered) {
      roots.add(pid);
    }
    if (pinned) {
      roots.add(anchorRow.pid());
    }
    Set<Long> visited = new HashSet<>();
    while (!roots.isEmpty()) {
      long root = roots.poll();
      if (visited.add(root)) {
        for (ProcessInfo child : table.children(root)) {
          add(found, child.pid(), Discovery.PARENTAGE);
          roots.add(child.pid());
        }
      }
    }

    // Seen in the tree before, and no other reason now (re-parented to init after its parent
    // died, or its group/session id is no longer pinned): a descendant by remembered parentage.
    for (long pid : remembered) {
      found.putIfAbsent(pid, EnumSet.of(Discovery.PARENTAGE));
    }

    Set<Long> excluded = ancestorsOfSelf(table);
    if (!scope.anchorIsMember()) {
      excluded.add(scope.anchor().pid());
    }
    List<TreeMember> members = new ArrayList<>();
    List<TreeMember> escapees = new ArrayList<>();
    for (Map.Entry<Long, Set<Discovery>> entry : found.entrySet()) {
      ProcessInfo row = table.get(entry.getKey()).orElse(null);
      if (row == null || row.pid() <= 1 || excluded.contains(row.pid())) {
        continue;
      }
      ProcessIdentity identity = row.identity(boot);
      known.add(identity);
      if (row.hasExited()) {
        continue; // zombies are gone for every decision
      }
      TreeMember member = TreeMember.of(row, boot, entry.getValue());
      (row.pgid() == scope.groupId() ? members : escapees).add(member);
    }
    List<String> lines = new ArrayList<>();
    for (Map.Entry<Long, EnvironmentEntry> suspect : search.unknown.entrySet()) {
      long pid = suspect.getKey();
      if (found.containsKey(pid) || excluded.contains(pid) || pid == selfPid) {
        continue;
      }
      // Read again now: "unreadable" is also what a process that just exited looks like.
      ProcessInfo row = platform.info(pid).orElse(null);
      if (row != null
          && !row.hasExited()
          && row.startTime() == startOf(table, pid)
          && platform.probe(pid) != Liveness.ALIVE_NOT_OURS) {
        lines.add(describeSuspect(row, suspect.getValue()));
      }
    }
    return new Scan(new TreeView(members, escapees), search.pending, List.copyOf(lines));
  }

  /**
   * Pids of the table's processes that carry the cookie. Reading environ is the costly part, so it
   * is read only where it could matter: only descendants of the anchor inherit the cookie, so none
   * started before it (start times of one table share units); zombies are gone; a process whose
   * environment reads as KEY=VALUE entries keeps that answer (it inherited the cookie at fork or
   * never will). An empty or rewritten area is no answer: it is read again next time, and if the
   * process is not found otherwise it is a suspect the SESSION tier cannot rule out, unless this
   * user may not signal it (another user's, like every process a root build starts meanwhile).
   */
  private CookieSearch cookieCarriers(ProcessTable table, ProcessInfo anchorRow) {
    String boot = table.bootId();
    // Only descendants of the anchor can carry its cookie: none started before it.
    long notBefore =
        anchorRow != null
            ? anchorRow.startTime()
            : scope.anchor().startTime() >= 0 ? scope.anchor().startTime() : Long.MIN_VALUE;
    CookieSearch search = new CookieSearch();
    for (ProcessInfo row : table.all()) {
      // Kernel threads (kthreadd and its children) never carry a cookie; their environment
      // reads as empty or unreadable, which must not make them suspects.
      if (row.hasExited()
          || row.startTime() < notBefore
          || row.pid() == KTHREADD
          || row.ppid() == KTHREADD) {
        continue;
      }
      ProcessIdentity identity = row.identity(boot);
      if (cookieKnown.contains(identity)) {
        search.carriers.add(row.pid());
        continue;
      }
      if (cookieRead.contains(identity)) {
        continue;
      }
      EnvironmentEntry entry = platform.environmentEntry(row.pid(), COOKIE, scope.cookie());
      switch (entry) {
        case PRESENT -> {
          search.carriers.add(row.pid());
          cookieKnown.add(identity);
        }
        case ABSENT -> cookieRead.add(identity);
        // Inside execve the new environment is not laid out yet: no answer, ask again soon.
        case INSIDE_EXEC -> search.pending = true;
        case EMPTY, REWRITTEN, UNREADABLE -> search.unknown.put(row.pid(), entry);
      }
    }
    return search;
  }

  private static long startOf(ProcessTable table, long pid) {
    ProcessInfo row = table.get(pid).orElse(null);
    return row == null ? -1L : row.startTime();
  }

  private static String describeSuspect(ProcessInfo row, EnvironmentEntry entry) {
    String why =
        switch (entry) {
          case EMPTY -> "empty environment (env -i?)";
          case REWRITTEN -> "environment area rewritten (a process title?)";
          default -> "environment unreadable";
        };
    return row.pid()
        + " ("
        + row.command()
        + ", ppid "
        + row.ppid()
        + ", sid "
        + row.sid()
        + "): started after the tree, outside its session and parentage, "
        + why
        + ": the SESSION tier cannot tell whether it is the tree's";
  }

  /** This JVM and its ancestors: never part of any tree, whatever they carry. */
  private Set<Long> ancestorsOfSelf(ProcessTable table) {
    Set<Long> out = new HashSet<>();
    long pid = selfPid;
    while (pid > 1 && out.add(pid)) {
      ProcessInfo row = table.get(pid).orElse(null);
      pid = row == null ? 0L : row.ppid();
    }
    return out;
  }

  private static void add(Map<Long, Set<Discovery>> found, long pid, Discovery how) {
    Set<Discovery> reasons = found.get(pid);
    if (reasons == null) {
      reasons = EnumSet.noneOf(Discovery.class);
      found.put(pid, reasons);
    }
    reasons.add(how);
  }
}
