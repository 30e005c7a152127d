package dev.lifecycle.cgroup;

import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.testing.Requirement;
import java.util.Optional;

/** The writable cgroup parent tests need: skipped with the reason, but a failure under CI=true. */
public final class Cgroups {
  private Cgroups() {}

  public static Cgroup writableParentOrSkip() {
    Containment containment = Containment.decide(Containment.Mode.AUTO, Optional.empty());
    if (containment.tier() != ContainmentTier.CGROUP) {
      Requirement.unmet("no writable cgroup for CGROUP-tier tests: " + containment.reason());
    }
    return Cgroup.at(containment.parent().orElseThrow());
  }
}
