package dev.lifecycle.broker;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.CgroupHierarchy;
import dev.lifecycle.process.cgroup.OwnedCgroups;
import dev.lifecycle.tether.Tether;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * A broker started by a client that has exited since (a CLI) is the last process of the cgroup that
 * client's tree made; its backends are ended by then, so it leaves that cgroup and removes it
 * (nobody else would before the next lifecycle JVM's first spawn under the same parent).
 */
final class OrphanedCgroup {
  private OrphanedCgroup() {}

  /**
   * Leaves and removes this process's cgroup (with its tethers' sidecars) once the client its name
   * records is provably gone; anything else leaves it as it is.
   *
   * @param configured the broker's own tether, or null when it uses the shared one
   */
  static void leave(ProcessPlatform platform, Tether configured) {
    Optional<Cgroup> own = CgroupHierarchy.locate().flatMap(CgroupHierarchy::ofSelf);
    if (own.isEmpty()) {
      return;
    }
    Set<Long> sidecars = new LinkedHashSet<>(); // never starts one
    Tether.sharedSidecar().ifPresent(sidecar -> sidecars.add(sidecar.pid()));
    if (configured != null) {
      sidecars.add(configured.sidecar().pid());
    }
    OwnedCgroups.leaveIfOrphaned(
        own.get(),
        platform.self().pid(),
        sidecars,
        (pid, start) ->
            Liveness.judge(platform, new ProcessIdentity(pid, start, "")).isProvenGone());
  }
}
