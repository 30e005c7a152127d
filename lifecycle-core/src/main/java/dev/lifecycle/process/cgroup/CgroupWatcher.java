package dev.lifecycle.process.cgroup;

import dev.lifecycle.internal.Backoff;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.internal.Threads;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Observes {@code populated 0} of any number of cgroups with one inotify instance (the JDK's
 * WatchService) and one daemon thread: the kernel reports every change of {@code cgroup.events} as
 * a modification in the cgroup's directory. No polling; each event re-reads the one small file.
 *
 * <p>The JDK's watch service reads inotify on a thread of its own that sits in native code, and
 * HotSpot's final safepoint waits up to ~300 ms for threads in native code. So from the start of
 * shutdown (a hook) the service is closed and every waiter, present or future, is served by polling
 * with backoff (1 ms doubling to 1 s) on a Java thread: shutdown hooks that end trees still see
 * their cgroups empty, and the JVM's exit is not held up.
 */
final class CgroupWatcher {
  private static final LazyLogger LOG = LazyLogger.of(CgroupWatcher.class);

  /**
   * Polls (without a watch) start at 1 ms, so an exit seen during shutdown ends its wait at once.
   */
  private static final Duration FIRST_POLL = Duration.ofMillis(1);

  /** And slow down to 1 s, so a long-lived cgroup costs about one read a second. */
  private static final Duration MAX_POLL = Duration.ofSeconds(1);

  private final WatchService service;
  private final Map<WatchKey, Entry> entries = new HashMap<>(); // guarded by this
  private boolean closed; // guarded by this: shutdown began, waiters are polled

  private record Entry(Cgroup cgroup, List<CompletableFuture<Cgroup>> waiters) {}

  private CgroupWatcher(WatchService service) {
    this.service = service;
    Threads.startDaemon("lifecycle-cgroup-watch", this::loop);
    try {
      Threads.shutdownHook("lifecycle-cgroup-watch-stop", this::close);
    } catch (IllegalStateException shuttingDown) {
      close();
    }
  }

  /** Closes the watch service (its thread leaves native code) and polls every waiter instead. */
  private void close() {
    List<Entry> left = new ArrayList<>();
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      for (Entry entry : entries.values()) {
        left.add(new Entry(entry.cgroup(), List.copyOf(entry.waiters())));
      }
      entries.clear();
    }
    try {
      service.close();
    } catch (IOException e) {
      LOG.debug("cannot close the cgroup watch service", e);
    }
    for (Entry entry : left) {
      for (CompletableFuture<Cgroup> waiter : entry.waiters()) {
        poll(entry.cgroup(), waiter, Backoff.of(FIRST_POLL, MAX_POLL));
      }
    }
  }

  static CgroupWatcher get() {
    return Holder.INSTANCE;
  }

  private static final class Holder {
    static final CgroupWatcher INSTANCE = create();

    private static CgroupWatcher create() {
      try {
        return new CgroupWatcher(FileSystems.getDefault().newWatchService());
      } catch (IOException e) {
        throw new IllegalStateException("cannot create an inotify watch service", e);
      }
    }
  }

  CompletableFuture<Cgroup> whenEmpty(Cgroup cgroup) {
    CompletableFuture<Cgroup> future = new CompletableFuture<>();
    synchronized (this) {
      if (closed) {
        poll(cgroup, future, Backoff.of(FIRST_POLL, MAX_POLL));
        return future;
      }
    }
    WatchKey key;
    try {
      // Register first, then read: a change between the two is then never missed.
      key = cgroup.path().register(service, StandardWatchEventKinds.ENTRY_MODIFY);
    } catch (NoSuchFileException e) {
      future.complete(cgroup); // removed: nothing can be in it
      return future;
    } catch (IOException | ClosedWatchServiceException e) {
      // No watch (inotify limits, or shutdown began): poll with backoff rather than claim what was
      // not seen.
      LOG.debug("cannot watch {}; polling it", cgroup, e);
      poll(cgroup, future, Backoff.of(Duration.ofMillis(10), MAX_POLL));
      return future;
    }
    synchronized (this) {
      if (closed) {
        poll(cgroup, future, Backoff.of(FIRST_POLL, MAX_POLL));
        return future;
      }
      entries.computeIfAbsent(key, k -> new Entry(cgroup, new ArrayList<>())).waiters().add(future);
    }
    future.whenComplete((c, t) -> forget(key, future)); // cancelled or completed
    check(key);
    return future;
  }

  private static final java.util.concurrent.ScheduledExecutorService POLLER =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
          Threads.daemons("lifecycle-cgroup-poll"));

  private static void poll(Cgroup cgroup, CompletableFuture<Cgroup> future, Backoff backoff) {
    if (future.isDone()) {
      return;
    }
    boolean empty;
    try {
      empty = !cgroup.isPopulated();
    } catch (IOException e) {
      empty = !cgroup.exists();
    }
    if (empty) {
      future.complete(cgroup);
      return;
    }
    POLLER.schedule(
        () -> poll(cgroup, future, backoff),
        backoff.nextNanos(),
        java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  private void forget(WatchKey key, CompletableFuture<Cgroup> future) {
    synchronized (this) {
      Entry entry = entries.get(key);
      if (entry == null) {
        return;
      }
      entry.waiters().remove(future);
      if (entry.waiters().isEmpty()) {
        entries.remove(key);
        key.cancel();
      }
    }
  }

  private void check(WatchKey key) {
    Entry entry;
    List<CompletableFuture<Cgroup>> waiters;
    synchronized (this) {
      entry = entries.get(key);
      if (entry == null) {
        return;
      }
      waiters = List.copyOf(entry.waiters());
    }
    boolean empty;
    try {
      empty = !entry.cgroup().isPopulated(); // a removed cgroup reads as not populated
    } catch (IOException e) {
      LOG.debug("cannot read events of {}", entry.cgroup(), e);
      empty = !entry.cgroup().exists();
    }
    if (empty) {
      // A loop, not a lambda: this runs when a tree's last process exits, often as it closes.
      for (CompletableFuture<Cgroup> waiter : waiters) {
        waiter.complete(entry.cgroup());
      }
    }
  }

  private void loop() {
    while (true) {
      WatchKey key;
      try {
        key = service.take();
      } catch (InterruptedException | ClosedWatchServiceException e) {
        return;
      }
      key.pollEvents(); // any event (or an overflow) means: read cgroup.events again
      check(key);
      key.reset();
    }
  }
}
