package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.tree.orphans.OrphanEnding;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Ends a tree that this JVM did not spawn, found left behind by an owner that is gone, with the
 * same staged termination as {@link ProcessTree#terminate(Duration)} (TERM and CONT, grace, KILL,
 * verify) and the same report. Membership is exact or nothing: a CGROUP-tier tree is its cgroup's
 * members, ended with {@code cgroup.kill}; a SESSION-tier tree is the processes carrying its cookie
 * and their descendants, each signalled by identity. Whether the owner is gone is the caller's
 * judgement, made on proof before calling. Reached only through {@link OrphanEnding}, where it
 * registers itself when initialized, so that neither it nor the engines are API. Stateless,
 * thread-safe.
 */
final class Orphans implements OrphanEnding.Engine<TerminationReport> {
  static {
    OrphanEnding.register(TerminationReport.class, new Orphans());
  }

  private Orphans() {}

  @Override
  public TerminationReport endCgroup(
      ProcessPlatform platform,
      Path cgroup,
      ProcessIdentity anyMember,
      Duration grace,
      String label) {
    Objects.requireNonNull(platform, "platform");
    Objects.requireNonNull(label, "label");
    return Termination.of(
            platform,
            Optional.of(Cgroup.at(cgroup)),
            null,
            new ForeignLeader(anyMember, ""),
            new Signaller(platform, anyMember, -1, false),
            grace,
            TreeOptions.defaults(),
            "cgroup " + cgroup + " left behind by its owner",
            label)
        .run();
  }

  @Override
  public TerminationReport endByCookie(
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
    return Termination.of(
            platform,
            Optional.empty(),
            new TreeScanner(platform, new Scope(oldest, true, -1, false, -1, cookie)),
            null,
            new Signaller(platform, oldest, -1, false),
            grace,
            TreeOptions.defaults(),
            "SESSION tier: members by cookie, left behind by their owner",
            label)
        .run();
  }
}
