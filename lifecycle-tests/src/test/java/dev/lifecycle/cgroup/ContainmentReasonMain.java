package dev.lifecycle.cgroup;

import dev.lifecycle.process.Containment;

/**
 * The child JVM of {@link UnprivilegedCgroupTest} run as an unprivileged user in a cgroup it cannot
 * write: prints {@code TIER <tier> <reason>} of the containment it would get.
 */
public final class ContainmentReasonMain {
  private ContainmentReasonMain() {}

  public static void main(String[] args) {
    Containment containment = Containment.current();
    System.out.println("TIER " + containment.tier() + " " + containment.reason());
  }
}
