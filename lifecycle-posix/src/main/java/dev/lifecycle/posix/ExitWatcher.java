package dev.lifecycle.posix;

import dev.lifecycle.internal.Threads;

/**
 * Observes children's exits and has each one collect its status ({@link PosixProcess#collectExit}).
 */
interface ExitWatcher {

  /** Starts watching {@code process}; its exit may already have happened. */
  void watch(PosixProcess process);

  /**
   * The fallback: one daemon thread per child, blocked in {@code waitid(P_PID, pid, WEXITED |
   * WNOWAIT)} until the child exits (observing without reaping), which then collects the status.
   * Used where pidfds are unavailable (Linux before 5.4, seccomp filters) and on macOS, where a
   * kqueue {@code EVFILT_PROC} watcher would be the threadless equivalent (not implemented yet).
   */
  static ExitWatcher threadPerChild() {
    return process -> {
      Threads.startDaemon(
          "lifecycle-exit-" + process.pid(),
          () -> {
            process.awaitExit();
            process.collectExit();
          });
    };
  }
}
