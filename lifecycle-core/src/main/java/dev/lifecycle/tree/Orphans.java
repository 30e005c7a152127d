package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.cgroup.Cgroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Ends a tree that this JVM did not spawn, found left behind by an owner that is gone, with the
 * same staged termination as {@link ProcessTree#terminate(Duration)} (TERM and CONT, grace, KILL,
 * verify) and the same report. Membership is exact or nothing: a CGROUP-tier tree is its cgroup's
 * members, ended with {@code cgroup.kill}; a SESSION-tier tree is the processes carrying its cookie
 * and their descendants, each signalled by identity. Whether the owner is gone is the caller's
 * judgement, made on proof before calling. Stateless, thread-safe.
 */
public final class Orphans {
  private Orphans() {}

  /**
   * Ends every process in {@code cgroup} (and below), then removes the cgroup.
   *
   * @param platform signals and reads the processes
   * @param cgroup the tree's cgroup directory
   * @param anyMember a member's identity, named in the report as the tree's leader
   * @param grace how long the members may take to exit after SIGTERM
   * @param label what the report calls the tree
   * @return what the termination did and whether the cgroup is proven empty
   */
  public static TerminationReport endCgroup(
      ProcessPlatform platform,
      Path cgroup,
      ProcessIdentity anyMember,
      Duration grace,
      String label) {
    Objects.requireNonNull(platform, "platform");
    Objects.requireNonNull(label, "label");
    Cgroup c = Cgroup.at(cgroup);
    ForeignLeader leader = new ForeignLeader(anyMember, "");
    TreeOptions options = TreeOptions.defaults();
    Signaller signaller = new Signaller(platform, anyMember, -1, false);
    return new Termination(
            new CgroupMembership(platform, c, leader, signaller, options),
            signaller,
            grace,
            options,
            null,
            Duration.ZERO,
            leader,
            "cgroup " + cgroup + " left behind by its owner",
            label)
        .run();
  }

  /**
   * Ends every process that carries {@code cookie} (and their descendants), each by identity.
   *
   * @param platform signals and reads the processes
   * @param cookie the tree's cookie, as its processes carry it
   * @param oldest the identity of the oldest carrier: processes started before it cannot carry the
   *     cookie
   * @param grace how long the members may take to exit after SIGTERM
   * @param label what the report calls the tree
   * @return what the termination did and whether the tree is proven gone
   */
  public static TerminationReport endByCookie(
      ProcessPlatform platform,
      String cookie,
      ProcessIdentity oldest,
      Duration grace,
      String label) {
    Objects.requireNonNull(platform, "platform");
    Objects.requireNonNull(label, "label");
    if (Objects.requireNonNull(cookie, "cookie").isEmpty()) {
      throw new IllegalArgumentException("a tree without a cookie has no exact membership");
    }
    Scope scope = new Scope(oldest, true, -1, false, -1, cookie);
    TreeOptions options = TreeOptions.defaults();
    Signaller signaller = new Signaller(platform, oldest, -1, false);
    return new Termination(
            new SessionMembership(
                platform, new TreeScanner(platform, scope), signaller, grace, options),
            signaller,
            grace,
            options,
            null,
            Duration.ZERO,
            null,
            "SESSION tier: members by cookie, left behind by their owner",
            label)
        .run();
  }
}
