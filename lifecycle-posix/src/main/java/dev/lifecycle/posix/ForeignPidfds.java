package dev.lifecycle.posix;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Pidfds of recently probed processes that are not our children, so that probing the same pid again
 * costs {@code kill(pid, 0)} and one {@code poll} instead of {@code pidfd_open}, {@code poll} and
 * {@code close}. A pidfd names one process, never a pid: once that process has exited it polls
 * readable forever, even after its pid was reused, so a cached pidfd can only ever answer "still
 * running" for the very process it was opened for; anything else is evicted and asked afresh.
 *
 * <p>At most {@value #CAPACITY} descriptors (least recently probed evicted and closed).
 * Thread-safe: a descriptor is polled and closed under the same lock, so a poll never reaches a
 * closed and recycled fd number.
 */
final class ForeignPidfds {
  static final int CAPACITY = 64;

  private final Map<Integer, Integer> byPid =
      new LinkedHashMap<>(CAPACITY * 2, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Integer> eldest) {
          if (size() > CAPACITY) {
            LibC.close(eldest.getValue());
            return true;
          }
          return false;
        }
      };

  /**
   * Whether {@code pid} (just found by {@code kill(pid, 0)}) has exited.
   *
   * @return 1 exited (zombie, or reaped meanwhile), 0 running, -1 when no pidfd can be used
   */
  synchronized int exited(int pid) {
    Integer cached = byPid.get(pid);
    if (cached != null) {
      if (Pidfds.exited(cached) == 0) {
        return 0; // the process this fd was opened for still runs, so it still owns the pid
      }
      LibC.close(byPid.remove(pid));
    }
    int fd = LinuxC.pidfdOpen(pid);
    if (fd < 0) {
      return LibC.errno() == OsConstants.ESRCH ? 1 : -1; // EINVAL for a thread id: use /proc
    }
    int exited = Pidfds.exited(fd);
    if (exited == 0) {
      byPid.put(pid, fd);
    } else {
      LibC.close(fd);
    }
    return exited;
  }

  /** Drops the pidfd of a pid that {@code kill} no longer finds. */
  synchronized void forget(int pid) {
    Integer fd = byPid.remove(pid);
    if (fd != null) {
      LibC.close(fd);
    }
  }

  synchronized int size() {
    return byPid.size();
  }
}
