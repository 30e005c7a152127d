package dev.lifecycle.posix;

import com.sun.jna.Memory;
import com.sun.jna.Platform;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.internal.Threads;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Linux exit watching without a thread per child: every child's pidfd (readable once it exits) is
 * registered with one epoll instance, and one daemon thread waits on it.
 *
 * <p>The watcher never delays the JVM's exit. HotSpot's final safepoint waits up to ~300 ms for
 * threads that are inside native code (a thread blocked in {@code epoll_wait} is), so the thread is
 * in native only while it has children to watch (with none it waits on a Java monitor), and from
 * the start of shutdown (a hook writes an eventfd in the set) it stops blocking in native: it polls
 * the set without a timeout and parks in Java between polls ({@value #SHUTDOWN_POLL_MS} ms), so
 * exits are still collected for other shutdown hooks (a broker ending its backends).
 *
 * <p>{@code epoll_ctl} from the spawning thread is seen by an {@code epoll_wait} already in
 * progress (epoll_wait(2)). A pidfd is removed from the set before its process may close it, so a
 * recycled fd number can never be mistaken for an old registration.
 */
final class PidfdExitWatcher implements ExitWatcher {
  private static final LazyLogger LOG = LazyLogger.of(PidfdExitWatcher.class);

  private static final int MAX_EVENTS = 64;
  private static final long WAKEUP = -1; // epoll data of the eventfd; pidfds are >= 0
  static final long SHUTDOWN_POLL_MS = 5;

  /** x86_64 packs struct epoll_event (u32 events, u64 data: 12 bytes); other ABIs pad it to 16. */
  private static final boolean PACKED = Platform.isIntel() && Platform.is64Bit();

  private static final int EVENT_SIZE = PACKED ? 12 : 16;
  private static final int DATA_OFFSET = PACKED ? 4 : 8;

  private final int epoll;
  private final int wakeup;
  private final Map<Integer, PosixProcess> byPidfd = new ConcurrentHashMap<>();
  private final Object idle = new Object(); // notified when byPidfd gains an entry
  private volatile boolean shuttingDown;

  private PidfdExitWatcher(int epoll, int wakeup) {
    this.epoll = epoll;
    this.wakeup = wakeup;
  }

  static PidfdExitWatcher start() {
    int epoll = LinuxC.epoll_create1(LinuxC.EPOLL_CLOEXEC);
    if (epoll < 0) {
      throw new IllegalStateException("epoll_create1: " + LibC.describe(LibC.errno()));
    }
    int wakeup = EventFd.eventfd(0, EventFd.EFD_CLOEXEC | EventFd.EFD_NONBLOCK);
    if (wakeup < 0 || add(epoll, wakeup, WAKEUP) != 0) {
      int errno = LibC.errno();
      LibC.close(epoll);
      throw new IllegalStateException("eventfd for the exit watcher: " + LibC.describe(errno));
    }
    PidfdExitWatcher watcher = new PidfdExitWatcher(epoll, wakeup);
    try {
      Threads.shutdownHook("lifecycle-exit-watcher-shutdown", watcher::shutdown);
    } catch (IllegalStateException alreadyShuttingDown) {
      watcher.shuttingDown = true;
    }
    Threads.startDaemon("lifecycle-exit-watcher", watcher::run);
    return watcher;
  }

  private static int add(int epoll, int fd, long data) {
    Memory event = new Memory(EVENT_SIZE);
    event.clear();
    event.setInt(0, LinuxC.EPOLLIN);
    event.setLong(DATA_OFFSET, data);
    return LinuxC.epoll_ctl(epoll, LinuxC.EPOLL_CTL_ADD, fd, event);
  }

  @Override
  public void watch(PosixProcess process) {
    int pidfd = process.pidfd();
    byPidfd.put(pidfd, process);
    if (add(epoll, pidfd, pidfd) != 0) {
      byPidfd.remove(pidfd);
      LOG.warn("epoll_ctl({}): {}; watching with a thread", pidfd, LibC.describe(LibC.errno()));
      ExitWatcher.threadPerChild().watch(process);
      return;
    }
    synchronized (idle) {
      idle.notifyAll();
    }
  }

  /** Whether the watcher thread has switched to polling (shutdown has begun). */
  boolean isShuttingDown() {
    return shuttingDown;
  }

  private void shutdown() {
    shuttingDown = true;
    EventFd.signal(wakeup); // ends an epoll_wait(-1) in progress
    synchronized (idle) {
      idle.notifyAll();
    }
  }

  private void run() {
    Memory events = new Memory((long) EVENT_SIZE * MAX_EVENTS);
    while (true) {
      if (!awaitWork()) {
        return;
      }
      boolean polling = shuttingDown;
      int ready = LinuxC.epoll_wait(epoll, events, MAX_EVENTS, polling ? 0 : -1);
      if (ready < 0) {
        if (LibC.errno() != OsConstants.EINTR) {
          LOG.error("epoll_wait failed: {}", LibC.describe(LibC.errno()));
          return; // cannot happen with a valid epoll fd; nothing sensible to retry
        }
        continue;
      }
      for (int i = 0; i < ready; i++) {
        long data = events.getLong((long) i * EVENT_SIZE + DATA_OFFSET);
        if (data == WAKEUP) {
          EventFd.drain(wakeup);
        } else {
          exited((int) data);
        }
      }
      if (polling && ready == 0) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(SHUTDOWN_POLL_MS));
      }
    }
  }

  /** Waits in Java (not in native code) while there is nothing to watch; false if interrupted. */
  private boolean awaitWork() {
    synchronized (idle) {
      while (byPidfd.isEmpty()) {
        try {
          idle.wait();
        } catch (InterruptedException e) {
          return false;
        }
      }
    }
    return true;
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
