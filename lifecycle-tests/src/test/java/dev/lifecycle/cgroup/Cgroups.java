package dev.lifecycle.cgroup;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.cgroup.Cgroup;
import java.util.Optional;

/** The writable cgroup parent tests need: skipped with the reason, but a failure under CI=true. */
public final class Cgroups {
  private Cgroups() {}

  public static Cgroup writableParentOrSkip() {
    Containment containment = Containment.decide(Containment.Mode.AUTO, Optional.empty());
    if (containment.tier() != ContainmentTier.CGROUP) {
      if ("true".equals(System.getenv("CI"))) {
        fail("CGROUP tier tests cannot run under CI=true: " + containment.reason());
      }
      assumeTrue(false, "no writable cgroup: " + containment.reason());
    }
    return Cgroup.at(containment.parent().orElseThrow());
  }
}
