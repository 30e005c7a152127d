package dev.lifecycle.inventory;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.cgroup.CgroupHierarchy;
import dev.lifecycle.process.cgroup.OwnedCgroups;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * CGROUP-tier trees: the owned cgroups ({@code lifecycle-<owner pid>-<owner start>-...}) anywhere
 * in the cgroup v2 hierarchy, and the live processes of each.
 */
final class CgroupTrees {
  private static final int MAX_CGROUP_DEPTH = 32;

  /** Carriers of the cookie of the cgroup tree they are in. */
  final Set<Long> claimed = new HashSet<>();

  /** Processes in a cgroup made for a tree (not in one made for a test kit or a host). */
  final Set<Long> inCgroups = new HashSet<>();

  private final List<Owned> owned = new ArrayList<>();

  private record Owned(Path dir, List<ProcessInfo> members, String cookie) {}

  private CgroupTrees() {}

  /** Every owned cgroup with a live process, read against {@code look}. */
  static CgroupTrees find(ProcessPlatform platform, FirstLook look) {
    CgroupTrees out = new CgroupTrees();
    Optional<CgroupHierarchy> hierarchy = CgroupHierarchy.locate();
    if (hierarchy.isEmpty()) {
      return out;
    }
    List<Path> dirs = new ArrayList<>();
    ownedCgroups(hierarchy.get().root().path(), 0, dirs);
    for (Path dir : dirs) {
      List<ProcessInfo> members = new ArrayList<>();
      for (long pid : directMembers(dir)) {
        ProcessInfo row = look.live.get(pid);
        if (row == null) {
          row = platform.info(pid).filter(r -> !r.hasExited()).orElse(null);
        }
        if (row != null) {
          members.add(row);
        }
      }
      if (members.isEmpty()) {
        continue;
      }
      members.sort(Comparator.comparingLong(ProcessInfo::startTime));
      String own = ownCookie(dir.getFileName().toString(), members, look.cookieOf);
      for (ProcessInfo row : members) {
        String cookie = look.cookieOf.get(row.pid());
        if (cookie != null && cookie.equals(own)) {
          out.claimed.add(row.pid());
        }
        // A tree's own cgroup holds what it spawned; a cgroup made for something else (a test
        // kit's, a host's) only holds processes that may belong to trees within it.
        if (!own.isEmpty()) {
          out.inCgroups.add(row.pid());
        }
      }
      out.owned.add(new Owned(dir, members, own));
    }
    return out;
  }

  /** The names of the owned cgroups that hold a live process. */
  Set<String> names() {
    Set<String> out = new HashSet<>();
    for (Owned o : owned) {
      out.add(o.dir.getFileName().toString());
    }
    return out;
  }

  /**
   * The cgroup trees, each with the members that are its own: carriers of its cookie, and processes
   * that carry none and belong to no SESSION tree ({@code inSessionTrees}).
   */
  List<Candidate> candidates(Map<Long, String> cookieOf, Set<Long> inSessionTrees) {
    List<Candidate> out = new ArrayList<>();
    for (Owned o : owned) {
      List<ProcessInfo> mine = new ArrayList<>();
      for (ProcessInfo row : o.members) {
        if (claimed.contains(row.pid())
            || (!cookieOf.containsKey(row.pid()) && !inSessionTrees.contains(row.pid()))) {
          mine.add(row);
        }
      }
      if (!mine.isEmpty()) { // else only other trees' processes are in it, listed as those
        out.add(
            new Candidate(
                FoundTree.Kind.CGROUP,
                o.dir.getFileName().toString(),
                Optional.of(o.dir),
                o.cookie,
                mine));
      }
    }
    return out;
  }

  /**
   * The cookie of the tree a cgroup was made for: the one its members carry that names the same
   * owner as the cgroup's name (a tree's cgroup and cookie are made by one process), or {@code ""}
   * for a cgroup that holds no such carrier.
   */
  private static String ownCookie(
      String name, List<ProcessInfo> members, Map<Long, String> cookieOf) {
    long[] owner = OwnedCgroups.owner(name).orElseThrow();
    for (ProcessInfo row : members) {
      String cookie = cookieOf.get(row.pid());
      Optional<ProcessIdentity> named =
          cookie == null ? Optional.empty() : SpawnOptions.cookieOwner(cookie);
      if (named.isPresent()
          && named.get().pid() == owner[0]
          && named.get().startTime() == owner[1]) {
        return cookie;
      }
    }
    return "";
  }

  /** Every owned cgroup under {@code dir}, nested ones included. */
  private static void ownedCgroups(Path dir, int depth, List<Path> out) {
    if (depth > MAX_CGROUP_DEPTH) {
      return;
    }
    for (Path child : subdirectories(dir)) {
      if (OwnedCgroups.owner(child.getFileName().toString()).isPresent()) {
        out.add(child);
      }
      ownedCgroups(child, depth + 1, out);
    }
  }

  /** The processes of {@code dir} and of its sub-cgroups that are not owned cgroups themselves. */
  static Set<Long> directMembers(Path dir) {
    Set<Long> out = new HashSet<>();
    List<Path> pending = new ArrayList<>();
    pending.add(dir);
    while (!pending.isEmpty()) {
      Path next = pending.remove(pending.size() - 1);
      try {
        for (String line : Files.readAllLines(next.resolve("cgroup.procs"))) {
          if (!line.isEmpty()) {
            out.add(Long.parseLong(line.trim()));
          }
        }
      } catch (IOException | RuntimeException e) {
        continue; // removed meanwhile
      }
      for (Path child : subdirectories(next)) {
        if (OwnedCgroups.owner(child.getFileName().toString()).isEmpty()) {
          pending.add(child);
        }
      }
    }
    return out;
  }

  private static List<Path> subdirectories(Path dir) {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
      for (Path child : children) {
        if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
          out.add(child);
        }
      }
    } catch (IOException | RuntimeException e) {
      // unreadable or removed meanwhile: nothing of ours can be listed there
    }
    return out;
  }
}
