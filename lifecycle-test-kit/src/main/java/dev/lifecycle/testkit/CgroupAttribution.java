package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.testkit.LeakedProcess.Reason;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The exact tier: this JVM runs in a {@link TestCgroup} of the check's own until the check, so
 * whatever it forked meanwhile is in it or below it; trees the library contains in cgroups of their
 * own are attributed through {@link LibraryTrees}. No sampling.
 */
final class CgroupAttribution implements AttributionTier {
  private final LeakOptions options;
  private final long self;
  private final TestCgroup group;
  private final LibraryTrees trees;
  private final Consumer<String> caveats;

  private CgroupAttribution(
      LeakOptions options, TestCgroup group, LibraryTrees trees, Consumer<String> caveats) {
    this.options = options;
    this.self = options.platform().self().pid();
    this.group = group;
    this.trees = trees;
    this.caveats = caveats;
  }

  /**
   * Moves this JVM into a new cgroup.
   *
   * @param enclosing the cgroup of the enclosing check, to nest in
   * @param caveats where notes for the report go
   * @throws TestCgroup.Unavailable when no cgroup can be used
   */
  static CgroupAttribution enter(
      LeakOptions options,
      String testName,
      Optional<TestCgroup> enclosing,
      LibraryTrees trees,
      Consumer<String> caveats)
      throws TestCgroup.Unavailable {
    return new CgroupAttribution(options, TestCgroup.enter(testName, enclosing), trees, caveats);
  }

  @Override
  public Attribution tier() {
    return Attribution.CGROUP;
  }

  @Override
  public String note() {
    return "cgroup " + group;
  }

  @Override
  public Optional<TestCgroup> cgroup() {
    return Optional.of(group);
  }

  @Override
  public Blamed blame() {
    Map<Long, Reason> reasons = new LinkedHashMap<>();
    for (long pid : group.members()) {
      reasons.put(pid, Reason.CGROUP);
    }
    trees.pids().forEach(pid -> reasons.putIfAbsent(pid, Reason.LIBRARY_TREE));
    return new Blamed(Rows.lazy(options.platform()), reasons);
  }

  /** Moves this JVM out of the cgroup: what it starts from now on is not the checked code's. */
  @Override
  public void beforeCheck() {
    try {
      group.leave();
    } catch (IOException e) {
      throw new IllegalStateException("cannot move this JVM out of " + group, e);
    }
  }

  /**
   * Freezes the cgroup, moves out whatever in it is not a leak (ignored or declared shared), then
   * {@code cgroup.kill}: everything that appeared in it meanwhile dies too and is listed.
   */
  @Override
  public void killFirst(
      Map<Long, ProcessIdentity> targets,
      Map<Long, String> commands,
      List<KilledProcess> kills,
      Supplier<List<LeakedProcess>> find) {
    try {
      group.freeze(true);
      try {
        Set<Long> members = group.members();
        Map<Long, LeakedProcess> leaksNow = new HashMap<>();
        for (LeakedProcess l : find.get()) {
          leaksNow.put(l.pid(), l);
        }
        List<Long> inside = new ArrayList<>();
        for (long pid : members) {
          if (targets.containsKey(pid)) {
            inside.add(pid);
          } else if (leaksNow.containsKey(pid)) {
            LeakedProcess l = leaksNow.get(pid);
            targets.put(pid, l.identity());
            commands.put(pid, l.commandLine());
            inside.add(pid);
            kills.add(new KilledProcess(l.identity(), l.commandLine(), "cgroup.kill", true));
          } else if (pid != self) {
            group.moveOut(pid); // ignored or shared: it must outlive the kill
          }
        }
        for (long pid : inside) {
          ProcessIdentity id = targets.remove(pid);
          if (kills.stream().noneMatch(k -> k.identity().pid() == pid)) {
            kills.add(new KilledProcess(id, commands.getOrDefault(pid, "?"), "cgroup.kill", false));
          }
        }
        group.kill();
      } finally {
        group.freeze(false);
      }
      group.awaitEmpty(LeakKiller.KILL_VERIFY);
    } catch (IOException e) {
      caveats.accept("cgroup.kill failed (" + e.getMessage() + "): killed one by one instead");
    }
  }

  @Override
  public Optional<String> caveat() {
    String shared = group.shared();
    return shared.isEmpty()
        ? Optional.empty()
        : Optional.of(
            "a concurrent check ("
                + shared
                + ") ran while this JVM was in this check's cgroup: what it forked"
                + " meanwhile is in this cgroup too");
  }

  /**
   * Removes the cgroup. What a {@link LeakAction#WARN} check left running in it is moved (never
   * signalled) to the cgroup this JVM returned to, so the cgroup can go.
   */
  @Override
  public void close() {
    try {
      group.leave();
    } catch (IOException e) {
      // nothing else can be done; the next remove attempt reports nothing either
    }
    group.moveAllOut();
    if (!group.remove()) {
      TestCgroup.park(group);
    }
  }
}
