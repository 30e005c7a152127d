package dev.lifecycle.process;

import dev.lifecycle.guard.Breach;
import dev.lifecycle.guard.Enforcement;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.CgroupCeilings;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a {@link ProcessPlatform} can guarantee on this machine, detected once. Callers (and tests)
 * branch on these flags instead of on the platform's name. Immutable and thread-safe.
 *
 * @param platform the implementation's name, e.g. {@code "posix-linux"} or {@code "jdk"}
 * @param newSession children start in a session of their own before their first instruction
 * @param groupSignals a process group can be signalled as one (killpg)
 * @param exactIdentity identities carry start time and boot id, so pid reuse is detected
 * @param threadlessExitWatch exits are observed without a thread per child (pidfd, kqueue)
 * @param details free-form diagnostics: kernel, libc version, features probed
 */
public record Capabilities(
    String platform,
    boolean newSession,
    boolean groupSignals,
    boolean exactIdentity,
    boolean threadlessExitWatch,
    Map<String, String> details) {

  /**
   * Checks the name and copies {@code details}.
   *
   * @param platform the implementation's name, e.g. {@code "posix-linux"} or {@code "jdk"}
   * @param newSession children start in a session of their own before their first instruction
   * @param groupSignals a process group can be signalled as one (killpg)
   * @param exactIdentity identities carry start time and boot id, so pid reuse is detected
   * @param threadlessExitWatch exits are observed without a thread per child (pidfd, kqueue)
   * @param details free-form diagnostics: kernel, libc version, features probed
   * @throws NullPointerException if {@code platform} or {@code details} is {@code null}
   */
  public Capabilities {
    Objects.requireNonNull(platform, "platform");
    details = Map.copyOf(details);
  }

  /**
   * The containment tier trees get here, with its reason (the cgroup parent, or exactly why there
   * is none). Decided once per JVM on first use ({@link Containment#current()}); the same for every
   * platform, since both can move a child into a cgroup.
   *
   * @return the JVM-wide containment decision
   */
  public Containment containment() {
    return Containment.current();
  }

  /**
   * Who would enforce each kind of ceiling ({@code dev.lifecycle.guard.Ceilings}) for a tree
   * spawned now: the kernel where the CGROUP tier's parent cgroup offers the controller and it can
   * be enabled for the trees' cgroups, the watchdog otherwise (and for the spin rule always), with
   * the reason, e.g. {@code watchdog: memory, processes, cpu, spin (cgroup v2 at
   * /sys/fs/cgroup/unified offers hugetlb only (no memory, pids, cpu))}. Reads the files again at
   * every call and changes nothing; a tree's own {@code enforcement()} says what it got.
   *
   * @return the enforcement a tree with every ceiling set would get here
   */
  public Enforcement ceilingEnforcement() {
    Containment c = containment();
    if (c.tier() == ContainmentTier.CGROUP && c.parent().isPresent()) {
      return CgroupCeilings.available(Cgroup.at(c.parent().get()));
    }
    return new Enforcement(
        Set.of(), EnumSet.allOf(Breach.Kind.class), "SESSION tier: " + c.reason());
  }
}
