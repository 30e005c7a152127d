package dev.lifecycle.guard;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Which of a tree's ceilings the kernel enforces and which the watchdog does, and why. Immutable
 * and thread-safe.
 *
 * <p>The kernel enforces in the CGROUP tier when the cgroup v2 hierarchy offers the controller
 * ({@code memory}: {@code memory.max} and {@code memory.high}; {@code pids}: {@code pids.max};
 * {@code cpu}: {@code cpu.max}, a throttle) and lifecycle could enable it for the tree's cgroup.
 * Everything else, and the spin rule always, is judged by the watchdog's sampler. A kernel-enforced
 * memory or process ceiling is watched too, so a breach the kernel stopped still ends the tree with
 * a report that names it.
 *
 * @param kernel the ceilings the kernel enforces for this tree
 * @param watchdog the ceilings (and the spin rule) the watchdog judges
 * @param reason why: the cgroup the kernel limits were written to, or exactly why not (e.g. {@code
 *     cgroup v2 at /sys/fs/cgroup/unified offers hugetlb only})
 */
public record Enforcement(Set<Breach.Kind> kernel, Set<Breach.Kind> watchdog, String reason) {

  /** Who enforces a ceiling. */
  public enum By {
    /** A cgroup v2 controller's limit. */
    KERNEL,
    /** The watchdog's sampler thread. */
    WATCHDOG
  }

  /**
   * Copies the sets.
   *
   * @param kernel the ceilings the kernel enforces for this tree
   * @param watchdog the ceilings the watchdog judges
   * @param reason why
   * @throws NullPointerException if a component is {@code null}
   */
  public Enforcement {
    kernel = kernel.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(kernel));
    watchdog = watchdog.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(watchdog));
    Objects.requireNonNull(reason, "reason");
  }

  /**
   * Whether nothing is enforced (no ceiling was set).
   *
   * @return {@code true} if neither the kernel nor the watchdog has anything to enforce
   */
  public boolean isNone() {
    return kernel.isEmpty() && watchdog.isEmpty();
  }

  /**
   * {@code kernel: memory, processes; watchdog: spin (cgroup /sys/fs/cgroup/unified/x)}, or {@code
   * none} when no ceiling is set.
   */
  @Override
  public String toString() {
    if (isNone()) {
      return "none (" + reason + ")";
    }
    StringBuilder out = new StringBuilder();
    if (!kernel.isEmpty()) {
      out.append("kernel: ").append(names(kernel));
    }
    if (!watchdog.isEmpty()) {
      out.append(out.length() == 0 ? "" : "; ").append("watchdog: ").append(names(watchdog));
    }
    return out.append(" (").append(reason).append(')').toString();
  }

  private static String names(Set<Breach.Kind> kinds) {
    StringBuilder out = new StringBuilder();
    for (Breach.Kind k : EnumSet.copyOf(kinds)) {
      out.append(out.length() == 0 ? "" : ", ").append(k.name().toLowerCase(Locale.ROOT));
    }
    return out.toString();
  }
}
