package dev.lifecycle.inventory;

import dev.lifecycle.process.ProcessInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * SESSION-tier trees: the carriers of a cookie no cgroup was made for, and their descendants that
 * carry none (env -i, a rewritten environment).
 */
final class CookieTrees {
  /** Every process of the trees found. */
  final Set<Long> members = new HashSet<>();

  final List<Candidate> candidates = new ArrayList<>();

  private CookieTrees() {}

  /** The SESSION trees of {@code look}, leaving out the carriers a cgroup tree claimed. */
  static CookieTrees find(FirstLook look, CgroupTrees cgroups) {
    Map<String, List<ProcessInfo>> byCookie = new LinkedHashMap<>();
    for (ProcessInfo row : look.table.all()) {
      String cookie = look.cookieOf.get(row.pid());
      if (cookie != null && !cgroups.claimed.contains(row.pid())) {
        byCookie.computeIfAbsent(cookie, k -> new ArrayList<>()).add(row);
      }
    }
    CookieTrees out = new CookieTrees();
    for (Map.Entry<String, List<ProcessInfo>> e : byCookie.entrySet()) {
      List<ProcessInfo> members = withDescendants(look, e.getValue(), cgroups.inCgroups);
      for (ProcessInfo row : members) {
        out.members.add(row.pid());
      }
      out.candidates.add(
          new Candidate(FoundTree.Kind.SESSION, e.getKey(), Optional.empty(), e.getKey(), members));
    }
    return out;
  }

  /**
   * The carriers of one cookie and their descendants that carry none (env -i, a rewritten area).
   */
  private static List<ProcessInfo> withDescendants(
      FirstLook look, List<ProcessInfo> carriers, Set<Long> inCgroups) {
    Map<Long, ProcessInfo> out = new LinkedHashMap<>();
    for (ProcessInfo c : carriers) {
      out.put(c.pid(), c);
    }
    List<ProcessInfo> queue = new ArrayList<>(carriers);
    while (!queue.isEmpty()) {
      ProcessInfo next = queue.remove(queue.size() - 1);
      for (ProcessInfo child : look.table.children(next.pid())) {
        if (!child.hasExited()
            && child.pid() != look.self
            && !look.cookieOf.containsKey(child.pid())
            && !inCgroups.contains(child.pid())
            && out.putIfAbsent(child.pid(), child) == null) {
          queue.add(child);
        }
      }
    }
    return new ArrayList<>(out.values());
  }
}
