package dev.lifecycle.process;

/**
 * The answer of a liveness probe. Decisions are taken on proof: only {@link #GONE} lets a caller
 * treat a process as finished and remove what it owned; a failed or ambiguous probe never does.
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

  /** Whether the process may still be running (anything but {@link #GONE}). */
  public boolean mayBeRunning() {
    return this != GONE;
  }
}
