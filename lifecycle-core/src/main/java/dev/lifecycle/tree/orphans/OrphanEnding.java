package dev.lifecycle.tree.orphans;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.tree.TerminationReport;
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
  private static volatile Engine engine;

  private OrphanEnding() {}

  /** What the tree package offers: staged termination of a tree left behind by its owner. */
  public interface Engine {
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
    TerminationReport endCgroup(
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
    TerminationReport endByCookie(
        ProcessPlatform platform,
        String cookie,
        ProcessIdentity oldest,
        Duration grace,
        String label);
  }

  /**
   * Called once, by the tree package's engine.
   *
   * @param value the engine
   * @throws IllegalStateException when an engine is already set
   */
  public static synchronized void register(Engine value) {
    if (engine != null) {
      throw new IllegalStateException("the orphan engine is already registered");
    }
    engine = Objects.requireNonNull(value, "value");
  }

  /**
   * The engine, initializing its class first if nothing did yet.
   *
   * @return the tree package's engine
   */
  public static Engine engine() {
    Engine e = engine;
    if (e == null) {
      try {
        Class.forName(ENGINE_CLASS, true, OrphanEnding.class.getClassLoader());
      } catch (ClassNotFoundException ex) {
        throw new IllegalStateException("no orphan engine: " + ENGINE_CLASS, ex);
      }
      e = engine;
    }
    return Objects.requireNonNull(e, "the orphan engine did not register");
  }
}
