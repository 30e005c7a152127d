package dev.lifecycle.process;

/**
 * The answer of a liveness probe. Decisions are taken on proof: only {@link #GONE} lets a caller
 * treat a process as finished and remove what it owned; a failed or ambiguous probe never does.
 * Immutable and thread-safe (an enum).
 */
public enum Liveness {
  /** The process exists, is not a zombie, and (when an identity was given) is the one recorded. */
  ALIVE,
  /**
   * Something is alive at that pid but it is not ours to touch: the kernel refused to let us signal
   * it (EPERM), or the pid now belongs to a different process (identity mismatch). In the mismatch
   * case the recorded process itself is gone, but the pid must still not be signalled.
   */
  ALIVE_NOT_OURS,
  /**
   * Proven gone: no such process (ESRCH), or it is a zombie that only awaits reaping. A process is
   * a zombie once its whole thread group has exited: for a moment after SIGKILL a multi-threaded
   * process (a JVM) shows its main thread as Z in {@code /proc} while other threads still exit and
   * its file descriptors (a listening socket) stay open; the JNA platform, which asks the pidfd,
   * still reads that as {@link #ALIVE}.
   */
  GONE;

  /**
   * Whether the process may still be running (anything but {@link #GONE}).
   *
   * @return {@code false} only for {@link #GONE}
   */
  public boolean mayBeRunning() {
    return this != GONE;
  }

  /**
   * The verdict on a recorded process (one named by an identity in a record or job file), with the
   * two meanings of {@link #ALIVE_NOT_OURS} told apart. Only {@link #isProvenGone()} lets a caller
   * remove what the process owned.
   */
  public enum Verdict {
    /** The recorded process is alive (its identity matches, or cannot be contradicted). */
    ALIVE,
    /**
     * A process lives at the pid and the kernel refused to let us signal it (EPERM), or its
     * identity cannot be read (e.g. {@code /proc} mounted with {@code hidepid}): possibly the
     * recorded process, so not proven gone.
     */
    ALIVE_NOT_PERMITTED,
    /** The pid now belongs to a process whose identity differs: the recorded one is gone. */
    PID_REUSED,
    /** No such process (ESRCH), or a zombie. */
    GONE;

    /**
     * Whether the recorded process is proven gone ({@link #GONE} or {@link #PID_REUSED}).
     *
     * @return {@code true} for {@link #GONE} and {@link #PID_REUSED}
     */
    public boolean isProvenGone() {
      return this == GONE || this == PID_REUSED;
    }

    /**
     * As a {@link Liveness}: a reused pid reads as the recorded process being {@link #GONE}.
     *
     * @return ALIVE, ALIVE_NOT_OURS (for ALIVE_NOT_PERMITTED) or GONE (for GONE and PID_REUSED)
     */
    public Liveness liveness() {
      return switch (this) {
        case ALIVE -> Liveness.ALIVE;
        case ALIVE_NOT_PERMITTED -> Liveness.ALIVE_NOT_OURS;
        case PID_REUSED, GONE -> Liveness.GONE;
      };
    }
  }

  /**
   * Judges the process {@code recorded} names, on proof: {@link Verdict#PID_REUSED} only when the
   * process now at the pid has a known, different identity; an identity that cannot be read is
   * never taken for a different one.
   *
   * @param platform probes and identifies the process
   * @param recorded the identity as recorded
   * @return the verdict
   */
  public static Verdict judge(ProcessPlatform platform, ProcessIdentity recorded) {
    Liveness liveness = platform.probe(recorded);
    if (liveness == GONE) {
      return Verdict.GONE;
    }
    if (liveness == ALIVE) {
      return Verdict.ALIVE;
    }
    boolean reused =
        platform
            .identify(recorded.pid())
            .map(now -> recorded.match(now) == ProcessIdentity.Match.DIFFERENT)
            .orElse(false);
    if (reused) {
      return Verdict.PID_REUSED;
    }
    // Exited between the two looks, or still EPERM: ask once more, then trust only ESRCH.
    return platform.probe(recorded.pid()) == GONE ? Verdict.GONE : Verdict.ALIVE_NOT_PERMITTED;
  }
}
