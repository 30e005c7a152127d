package dev.lifecycle.process;

import java.util.Objects;

/**
 * A child started by a {@link ProcessPlatform}: a real {@link Process} (streams, {@code waitFor},
 * {@code onExit}, {@code exitValue}, {@code toHandle}), plus what supervision needs to know. Its
 * methods may be called from any thread, as those of {@link Process}.
 */
public abstract class SupervisedProcess extends Process {
  private final ProcessIdentity identity;
  private final long processGroupId;
  private final String treeCookie;

  /**
   * For {@link ProcessPlatform} implementations, which alone create supervised processes.
   *
   * @param identity the child's identity, recorded at spawn time
   * @param processGroupId the child's own group id, or {@code -1} when it shares the JVM's group
   * @param treeCookie the cookie exported to the child
   * @throws NullPointerException if {@code identity} or {@code treeCookie} is {@code null}
   */
  protected SupervisedProcess(ProcessIdentity identity, long processGroupId, String treeCookie) {
    this.identity = Objects.requireNonNull(identity, "identity");
    this.processGroupId = processGroupId;
    this.treeCookie = Objects.requireNonNull(treeCookie, "treeCookie");
  }

  /**
   * The identity recorded at spawn time; use it for every later probe and signal.
   *
   * @return pid, start time and boot id of the child
   */
  public final ProcessIdentity identity() {
    return identity;
  }

  /**
   * The child's own process group id (equal to its pid when it leads a new session), or {@code -1}
   * when it shares the JVM's group and must not be signalled as a group.
   *
   * @return the pgid, or {@code -1}
   */
  public final long processGroupId() {
    return processGroupId;
  }

  /**
   * Whether the child leads a session of its own (setsid semantics from its first instruction).
   *
   * @return {@code true} if the child's process group id equals its pid
   */
  public boolean isSessionLeader() {
    return processGroupId() == pid();
  }

  /**
   * The cookie exported to the child and inherited by its descendants.
   *
   * @return the value of {@link SpawnOptions#COOKIE_VARIABLE} in the child's environment
   */
  public final String treeCookie() {
    return treeCookie;
  }

  /**
   * Reaps the child if it was spawned with {@link SpawnOptions#keepLeaderUnreaped()} and has
   * exited, freeing its pid. Idempotent; a no-op when the child is still running or was never held.
   *
   * @return whether the pid is now free (the child exited and has been reaped)
   */
  public abstract boolean reap();
}
