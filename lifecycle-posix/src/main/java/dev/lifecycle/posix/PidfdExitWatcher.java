package dev.lifecycle.posix;

import com.sun.jna.Memory;
import com.sun.jna.Platform;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Linux exit watching without a thread per child: every child's pidfd (readable once it exits) is
 * registered with one epoll instance, and one daemon thread waits on it.
 *
 * <p>No wake-up eventfd is needed: {@code epoll_ctl} from the spawning thread is seen by an {@code
 * epoll_wait} already in progress (epoll_wait(2)), and the thread never has to stop (it is a daemon
 * serving the JVM's lifetime). A pidfd is removed from the set before its process may close it, so
 * a recycled fd number can never be mistaken for an old registration.
 */
final class PidfdExitWatcher implements ExitWatcher {
  private static final Logger LOG = LoggerFactory.getLogger(PidfdExitWatcher.class);
  private static final int MAX_EVENTS = 64;

  /** x86_64 packs struct epoll_event (u32 events, u64 data: 12 bytes); other ABIs pad it to 16. */
  private static final boolean PACKED = Platform.isIntel() && Platform.is64Bit();

  private static final int EVENT_SIZE = PACKED ? 12 : 16;
  private static final int DATA_OFFSET = PACKED ? 4 : 8;

  private final int epoll;
  private final Map<Integer, PosixProcess> byPidfd = new ConcurrentHashMap<>();

  private PidfdExitWatcher(int epoll) {
    this.epoll = epoll;
  }

  static PidfdExitWatcher start() {
    int epoll = LinuxC.epoll_create1(LinuxC.EPOLL_CLOEXEC);
    if (epoll < 0) {
      throw new IllegalStateException("epoll_create1: " + LibC.describe(LibC.errno()));
    }
    PidfdExitWatcher watcher = new PidfdExitWatcher(epoll);
    Thread thread = new Thread(watcher::run, "lifecycle-exit-watcher");
    thread.setDaemon(true);
    thread.start();
    return watcher;
  }

  @Override
  public void watch(PosixProcess process) {
    int pidfd = process.pidfd();
    byPidfd.put(pidfd, process);
    Memory event = new Memory(EVENT_SIZE);
    event.clear();
    event.setInt(0, LinuxC.EPOLLIN);
    event.setLong(DATA_OFFSET, pidfd);
    if (LinuxC.epoll_ctl(epoll, LinuxC.EPOLL_CTL_ADD, pidfd, event) != 0) {
      byPidfd.remove(pidfd);
      LOG.warn("epoll_ctl({}): {}; watching with a thread", pidfd, LibC.describe(LibC.errno()));
      ExitWatcher.threadPerChild().watch(process);
    }
  }

  private void run() {
    Memory events = new Memory((long) EVENT_SIZE * MAX_EVENTS);
    while (true) {
      int ready = LinuxC.epoll_wait(epoll, events, MAX_EVENTS, -1);
      if (ready < 0) {
        if (LibC.errno() != OsConstants.EINTR) {
          LOG.error("epoll_wait failed: {}", LibC.describe(LibC.errno()));
          return; // cannot happen with a valid epoll fd; nothing sensible to retry
        }
        continue;
      }
      for (int i = 0; i < ready; i++) {
        exited((int) events.getLong((long) i * EVENT_SIZE + DATA_OFFSET));
      }
    }
  }

  private void exited(int pidfd) {
    PosixProcess process = byPidfd.remove(pidfd);
    if (process == null) {
      return;
    }
    LinuxC.epoll_ctl(epoll, LinuxC.EPOLL_CTL_DEL, pidfd, null);
    try {
      if (!process.collectExit()) {
        watch(process); // readable means exited, so this is not expected; stay correct anyway
      }
    } catch (RuntimeException e) {
      LOG.error("collecting the exit of {} failed", process, e);
    }
  }
}
