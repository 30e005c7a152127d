package dev.lifecycle.process;

import dev.lifecycle.internal.Setting;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.CgroupHierarchy;
import dev.lifecycle.process.cgroup.CgroupPlacement;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The containment tier trees get on this machine, with the reason: where the cgroup parent is and
 * why it was chosen, or exactly why the cgroup tier is not available (which path, which errno).
 * Immutable and thread-safe.
 *
 * <p>{@link #current()} is decided once per JVM from configuration: {@value #MODE_PROPERTY} (or
 * {@value #MODE_ENV}) = {@code auto} (default: CGROUP when available, else SESSION), {@code cgroup}
 * (require it: trees fail to spawn, naming the reason, instead of degrading) or {@code session}
 * (never use cgroups); {@value #PARENT_PROPERTY} (or {@value #PARENT_ENV}) names the parent cgroup
 * (a path inside the hierarchy such as {@code /user.slice/my-delegated.scope}, or a directory under
 * its mount). Without a configured parent: the JVM's own cgroup when writable (trees then nest
 * under whatever cgroup the JVM was put in, so whoever owns that cgroup sees them), else the
 * hierarchy's root when writable (root on a non-systemd host), else no cgroup tier.
 */
public final class Containment {
  /** System property that selects the mode: {@code auto}, {@code cgroup} or {@code session}. */
  public static final String MODE_PROPERTY = "lifecycle.containment";

  /** Environment variable that selects the mode when the property is unset. */
  public static final String MODE_ENV = "LIFECYCLE_CONTAINMENT";

  /** System property that names the parent cgroup of new trees. */
  public static final String PARENT_PROPERTY = "lifecycle.cgroup.parent";

  /** Environment variable that names the parent cgroup when the property is unset. */
  public static final String PARENT_ENV = "LIFECYCLE_CGROUP_PARENT";

  /** What the configuration asks for. */
  public enum Mode {
    /** The strongest tier available. */
    AUTO,
    /** CGROUP or fail. */
    REQUIRE_CGROUP,
    /** SESSION even when cgroups are available. */
    SESSION;

    /**
     * {@code auto}, {@code cgroup}, {@code session} (case-insensitive).
     *
     * @param text the configured text; blank reads as {@code auto}, {@code require-cgroup} as
     *     {@code cgroup}
     * @return the mode
     * @throws IllegalArgumentException if {@code text} names no mode
     */
    public static Mode parse(String text) {
      return switch (text.trim().toLowerCase(Locale.ROOT)) {
        case "auto", "" -> AUTO;
        case "cgroup", "require-cgroup", "require_cgroup" -> REQUIRE_CGROUP;
        case "session" -> SESSION;
        default ->
            throw new IllegalArgumentException(
                "containment must be auto, cgroup or session: '" + text + "'");
      };
    }
  }

  private final ContainmentTier tier;
  private final Mode mode;
  private final String reason;
  private final Optional<Cgroup> parent;

  private Containment(ContainmentTier tier, Mode mode, String reason, Optional<Cgroup> parent) {
    this.tier = tier;
    this.mode = mode;
    this.reason = reason;
    this.parent = parent;
  }

  /**
   * The JVM-wide decision from configuration, made on first use and kept while its parent cgroup
   * exists: when that cgroup has been removed (e.g. the one this JVM was in at first use), the next
   * call decides again from the configuration and the JVM's cgroup as they are then.
   *
   * @return the decision for the configured mode and parent; an unusable mode is logged and {@code
   *     auto} used
   */
  public static Containment current() {
    Containment decided = decision;
    if (decided == null || decided.isStale()) {
      synchronized (Containment.class) {
        decided = decision;
        if (decided == null || decided.isStale()) {
          decided = fromConfig();
          decision = decided;
          BY_MODE.clear();
        }
      }
    }
    return decided;
  }

  private static volatile Containment decision;

  private static final java.util.Map<Mode, Containment> BY_MODE =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * The decision for {@code mode} with the JVM's configured parent: {@link #current()} when that
   * has this mode, else decided once per mode and kept while its parent cgroup exists.
   *
   * @param mode the mode asked for
   * @return the decision for {@code mode}
   */
  public static Containment of(Mode mode) {
    Containment current = current();
    if (current.mode == mode) {
      return current;
    }
    Containment decided = BY_MODE.computeIfAbsent(mode, m -> decide(m, configuredParent()));
    if (decided.isStale()) {
      Containment again = decide(mode, configuredParent());
      BY_MODE.put(mode, again);
      return again;
    }
    return decided;
  }

  /** Whether this decision's parent cgroup is gone, so trees can no longer be created under it. */
  private boolean isStale() {
    return parent.isPresent() && !parent.get().exists();
  }

  private static final Setting<Mode> MODE =
      Setting.of(MODE_PROPERTY, MODE_ENV, Mode.AUTO, Mode::parse);

  private static final Setting<Optional<String>> PARENT =
      Setting.of(
          PARENT_PROPERTY,
          PARENT_ENV,
          Optional.empty(),
          text -> {
            if (text.isEmpty()) {
              throw new IllegalArgumentException("blank");
            }
            return Optional.of(text);
          });

  /**
   * The parent cgroup the configuration names ({@value #PARENT_PROPERTY}, else {@value
   * #PARENT_ENV}), read now.
   *
   * @return the configured path, or empty when none is configured (a blank value is ignored with a
   *     warning)
   */
  public static Optional<String> configuredParent() {
    return PARENT.resolve();
  }

  /** Not logged: {@link #current()} tells it, and the client path creates no logger. */
  private static Containment fromConfig() {
    return decide(MODE.resolve(), configuredParent());
  }

  /**
   * Decides for {@code mode} and an optional configured parent; reads the system now (mountinfo,
   * the JVM's cgroup, access checks). A required but unavailable CGROUP tier is returned as SESSION
   * with {@link #isRequirementMet()} false, so spawning can fail naming the reason.
   *
   * @param mode the mode asked for
   * @param configuredParent the parent cgroup's path, or empty to choose one
   * @return a new decision
   */
  public static Containment decide(Mode mode, Optional<String> configuredParent) {
    Objects.requireNonNull(mode, "mode");
    if (mode == Mode.SESSION) {
      return new Containment(
          ContainmentTier.SESSION, mode, "session tier configured", Optional.empty());
    }
    Optional<CgroupHierarchy> hierarchy = CgroupHierarchy.locate();
    if (hierarchy.isEmpty()) {
      return new Containment(
          ContainmentTier.SESSION,
          mode,
          "no cgroup2 mount in /proc/self/mountinfo (not Linux, or cgroup v1 only)",
          Optional.empty());
    }
    CgroupPlacement placement = CgroupPlacement.choose(hierarchy.get(), configuredParent);
    return placement.parent().isPresent()
        ? new Containment(ContainmentTier.CGROUP, mode, placement.reason(), placement.parent())
        : new Containment(ContainmentTier.SESSION, mode, placement.reason(), Optional.empty());
  }

  /**
   * The tier trees get.
   *
   * @return {@link ContainmentTier#CGROUP} when trees get a cgroup of their own, else {@link
   *     ContainmentTier#SESSION}
   */
  public ContainmentTier tier() {
    return tier;
  }

  /**
   * The mode this decision was made for.
   *
   * @return the configured or requested mode
   */
  public Mode mode() {
    return mode;
  }

  /**
   * For CGROUP: the parent and why it was chosen; for SESSION: exactly why there is no cgroup tier
   * (the path tried and its errno), or that SESSION was configured.
   *
   * @return the reason, for logs and reports
   */
  public String reason() {
    return reason;
  }

  /**
   * The cgroup trees are created under (CGROUP tier only).
   *
   * @return the parent cgroup's directory, or empty in the SESSION tier
   */
  public Optional<Path> parent() {
    return parent.map(Cgroup::path);
  }

  /**
   * False only when the CGROUP tier was required and is not available.
   *
   * @return {@code false} if the mode is {@link Mode#REQUIRE_CGROUP} and the tier is SESSION
   */
  public boolean isRequirementMet() {
    return mode != Mode.REQUIRE_CGROUP || tier == ContainmentTier.CGROUP;
  }

  @Override
  public String toString() {
    return tier + " (" + reason + ")";
  }
}
