package dev.lifecycle.tree;

import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.internal.Durations;
import dev.lifecycle.process.Containment;
import dev.lifecycle.time.Limit;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link ProcessTree} is ended. Immutable and thread-safe.
 *
 * @param grace how long the tree may take to exit after SIGTERM before SIGKILL ({@link
 *     ProcessTree#close()} and {@link ProcessTree#terminate()} use it; zero means SIGKILL right
 *     after SIGTERM)
 * @param escapeeGrace the grace of an escapee found only after the tree's group was verified empty:
 *     {@code min(grace, escapeeGrace)}. Shorter than the tree's grace because the escapee's tree is
 *     already gone and every caller is waiting on the sweep.
 * @param verifyTimeout how long to wait after SIGKILL for the processes to be gone before they are
 *     reported as survivors (uninterruptible sleep) instead of waiting forever
 * @param containment the containment this tree asks for; empty: as configured for the JVM ({@link
 *     Containment#current()}). {@link Containment.Mode#REQUIRE_CGROUP} makes the spawn fail, naming
 *     the reason, where the CGROUP tier is not available.
 * @param freezeBeforeKill CGROUP tier: freeze the cgroup before {@code cgroup.kill}, so a fork
 *     storm cannot outrun the kill (the kill itself is atomic; the freeze also stops the storm from
 *     using CPU while the kill walks the members)
 * @param ceilings memory, process-count and CPU ceilings and the spin rule ({@link Ceilings#none()}
 *     by default): enforced by the kernel where the CGROUP tier's controllers allow, else by the
 *     shared watchdog ({@link ProcessTree#enforcement()} says which)
 */
public record TreeOptions(
    Duration grace,
    Duration escapeeGrace,
    Duration verifyTimeout,
    Optional<Containment.Mode> containment,
    boolean freezeBeforeKill,
    Ceilings ceilings) {

  /** Default grace: enough for a JVM or a Node program to run its shutdown hooks. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);

  /** Default escapee grace: escapees are found late; the sweep should not double the wait. */
  public static final Duration DEFAULT_ESCAPEE_GRACE = Duration.ofSeconds(1);

  /** Default verification bound: SIGKILL'd processes are gone within milliseconds unless in D. */
  public static final Duration DEFAULT_VERIFY_TIMEOUT = Duration.ofSeconds(5);

  /**
   * Checks every component; durations above {@link Limit#MAX} (100 years) are clamped to it, so no
   * deadline overflows.
   *
   * @param grace how long the tree may take to exit after SIGTERM before SIGKILL ({@link
   *     ProcessTree#close()} and {@link ProcessTree#terminate()} use it; zero means SIGKILL right
   *     after SIGTERM)
   * @param escapeeGrace the grace of an escapee found only after the tree's group was verified
   *     empty: {@code min(grace, escapeeGrace)}. Shorter than the tree's grace because the
   *     escapee's tree is already gone and every caller is waiting on the sweep.
   * @param verifyTimeout how long to wait after SIGKILL for the processes to be gone before they
   *     are reported as survivors (uninterruptible sleep) instead of waiting forever
   * @param containment the containment this tree asks for; empty: as configured for the JVM ({@link
   *     Containment#current()}). {@link Containment.Mode#REQUIRE_CGROUP} makes the spawn fail,
   *     naming the reason, where the CGROUP tier is not available.
   * @param freezeBeforeKill CGROUP tier: freeze the cgroup before {@code cgroup.kill}, so a fork
   *     storm cannot outrun the kill (the kill itself is atomic; the freeze also stops the storm
   *     from using CPU while the kill walks the members)
   * @param ceilings memory, process-count and CPU ceilings and the spin rule
   * @throws NullPointerException if a component is {@code null}
   * @throws IllegalArgumentException if a duration is negative
   */
  public TreeOptions {
    Objects.requireNonNull(containment, "containment");
    Objects.requireNonNull(ceilings, "ceilings");
    grace = check(grace, "grace");
    escapeeGrace = check(escapeeGrace, "escapeeGrace");
    verifyTimeout = check(verifyTimeout, "verifyTimeout");
  }

  /**
   * Options with the JVM's configured containment and no freeze.
   *
   * @param grace how long the tree may take to exit after SIGTERM before SIGKILL
   * @param escapeeGrace the grace of an escapee found only after the tree's group was verified
   *     empty
   * @param verifyTimeout how long to wait after SIGKILL before the rest is reported as survivors
   * @throws IllegalArgumentException if a duration is negative
   */
  public TreeOptions(Duration grace, Duration escapeeGrace, Duration verifyTimeout) {
    this(grace, escapeeGrace, verifyTimeout, Optional.empty(), false);
  }

  /**
   * Options without ceilings.
   *
   * @param grace how long the tree may take to exit after SIGTERM before SIGKILL
   * @param escapeeGrace the grace of an escapee found only after the tree's group was verified
   *     empty
   * @param verifyTimeout how long to wait after SIGKILL before the rest is reported as survivors
   * @param containment the containment this tree asks for; empty: as configured for the JVM
   * @param freezeBeforeKill CGROUP tier: freeze the cgroup before {@code cgroup.kill}
   * @throws IllegalArgumentException if a duration is negative
   */
  public TreeOptions(
      Duration grace,
      Duration escapeeGrace,
      Duration verifyTimeout,
      Optional<Containment.Mode> containment,
      boolean freezeBeforeKill) {
    this(grace, escapeeGrace, verifyTimeout, containment, freezeBeforeKill, Ceilings.none());
  }

  /**
   * The defaults: {@link #DEFAULT_GRACE}, {@link #DEFAULT_ESCAPEE_GRACE}, {@link
   * #DEFAULT_VERIFY_TIMEOUT}, the JVM's configured containment, no freeze, no ceilings.
   *
   * @return the default options
   */
  public static TreeOptions defaults() {
    return new TreeOptions(DEFAULT_GRACE, DEFAULT_ESCAPEE_GRACE, DEFAULT_VERIFY_TIMEOUT);
  }

  /**
   * A copy with another grace.
   *
   * @param value how long the tree may take to exit after SIGTERM; zero sends SIGKILL right after
   * @return new options; these are unchanged
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public TreeOptions withGrace(Duration value) {
    return new TreeOptions(
        value, escapeeGrace, verifyTimeout, containment, freezeBeforeKill, ceilings);
  }

  /**
   * A copy with another escapee grace.
   *
   * @param value the grace of an escapee found late
   * @return new options; these are unchanged
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public TreeOptions withEscapeeGrace(Duration value) {
    return new TreeOptions(grace, value, verifyTimeout, containment, freezeBeforeKill, ceilings);
  }

  /**
   * A copy with another verification bound.
   *
   * @param value how long to wait after SIGKILL for the processes to be gone
   * @return new options; these are unchanged
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public TreeOptions withVerifyTimeout(Duration value) {
    return new TreeOptions(grace, escapeeGrace, value, containment, freezeBeforeKill, ceilings);
  }

  /**
   * Asks for {@code mode} instead of the JVM's configured containment.
   *
   * @param mode the containment this tree asks for
   * @return new options; these are unchanged
   */
  public TreeOptions withContainment(Containment.Mode mode) {
    return new TreeOptions(
        grace, escapeeGrace, verifyTimeout, Optional.of(mode), freezeBeforeKill, ceilings);
  }

  /**
   * A copy that does or does not freeze the cgroup before {@code cgroup.kill} (CGROUP tier only).
   *
   * @param value {@code true} to freeze first
   * @return new options; these are unchanged
   */
  public TreeOptions withFreezeBeforeKill(boolean value) {
    return new TreeOptions(grace, escapeeGrace, verifyTimeout, containment, value, ceilings);
  }

  /**
   * A copy with other ceilings.
   *
   * @param value memory, process-count and CPU ceilings and the spin rule; {@link Ceilings#none()}
   *     to watch nothing
   * @return new options; these are unchanged
   */
  public TreeOptions withCeilings(Ceilings value) {
    return new TreeOptions(
        grace, escapeeGrace, verifyTimeout, containment, freezeBeforeKill, value);
  }

  static Duration check(Duration value, String name) {
    return Durations.nonNegative(value, name);
  }
}
