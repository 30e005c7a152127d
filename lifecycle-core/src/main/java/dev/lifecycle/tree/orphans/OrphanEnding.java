package dev.lifecycle.tree.orphans;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * The seam through which the inventory reaches the tree package's termination engines to end a tree
 * this JVM did not spawn, without those engines or this entry becoming API: this package is not
 * exported, and the engine registers itself here when its class is initialized. Thread-safe: the
 * engine is set once and read through a volatile field.
 */
public final class OrphanEnding {
  private static final String ENGINE_CLASS = "dev.lifecycle.tree.Orphans";
  private static volatile Engine<?> engine;
  private static volatile Class<?> reportType;

  private OrphanEnding() {}

  /**
   * What the tree package offers: staged termination of a tree left behind by its owner.
   *
   * @param <R> the termination report
   */
  public interface Engine<R> {
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
    R endCgroup(
        ProcessPlatform platform,
        Path cgroup,
        ProcessIdentity anyMember,
        Duration grace,
        String label);

    /**
     * Ends every process that carries {@code cookie} (and their descendants), each by identity.
     *
     * @param platform signals and reads the processes
     * @param cookie the tree's cookie, as its processes carry it
     * @param oldest the oldest carrier, proven one: it is signalled, and processes started before
     *     it cannot carry the cookie
     * @param grace how long the members may take to exit after SIGTERM
     * @param label what the report calls the tree
     * @return what the termination did and whether the tree is proven gone
     */
    R endByCookie(
        ProcessPlatform platform,
        String cookie,
        ProcessIdentity oldest,
        Duration grace,
        String label);
  }

  /**
   * Called once, by the tree package's engine.
   *
   * @param <R> the report type
   * @param type the report type, checked by {@link #engine}
   * @param value the engine
   * @throws IllegalStateException when an engine is already set
   */
  public static synchronized <R> void register(Class<R> type, Engine<R> value) {
    if (engine != null) {
      throw new IllegalStateException("the orphan engine is already registered");
    }
    reportType = Objects.requireNonNull(type, "type");
    engine = Objects.requireNonNull(value, "value");
  }

  /**
   * The engine, initializing its class first if nothing did yet.
   *
   * @param <R> the report type
   * @param type the report type the caller expects
   * @return the tree package's engine
   * @throws IllegalStateException when no engine registered, or one with another report type
   */
  @SuppressWarnings("unchecked") // checked against the registered type
  public static <R> Engine<R> engine(Class<R> type) {
    if (engine == null) {
      try {
        Class.forName(ENGINE_CLASS, true, OrphanEnding.class.getClassLoader());
      } catch (ClassNotFoundException ex) {
        throw new IllegalStateException("no orphan engine: " + ENGINE_CLASS, ex);
      }
    }
    synchronized (OrphanEnding.class) {
      if (engine == null || reportType != type) {
        throw new IllegalStateException("no orphan engine reporting " + type.getName());
      }
      return (Engine<R>) engine;
    }
  }
}
