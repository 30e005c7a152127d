package dev.lifecycle.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.testing.Await;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Publishers, readers and clearers racing on one record, with latches instead of sleeps. */
class RecordStoreConcurrencyTest {
  /** Bounds a hang, not a speed: on a heavily loaded machine the publishes take tens of seconds. */
  private static final Duration DEADLINE = Duration.ofSeconds(180);

  private final ProcessPlatform platform = ProcessPlatform.get();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @TempDir Path tmp;

  @AfterEach
  void stopThreads() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
  }

  private SessionRecord generation(int port) {
    return SessionRecord.newGeneration(platform, Endpoint.tcp("127.0.0.1", port), Map.of());
  }

  @Test
  void readersNeverSeeAPartialRecordDuring1000Publishes() throws Exception {
    RecordStore store = RecordStore.open(tmp.resolve("records"), platform);
    Path file = store.recordFile("broker");
    Set<String> published = ConcurrentHashMap.newKeySet();
    SessionRecord first = generation(1);
    published.add(first.token());
    store.publish("broker", first);
    AtomicBoolean done = new AtomicBoolean();
    AtomicInteger reads = new AtomicInteger();
    Future<?> writer =
        pool.submit(
            () -> {
              for (int i = 0; i < 1000; i++) {
                SessionRecord next = generation(2 + i);
                published.add(next.token());
                store.publish("broker", next);
              }
              done.set(true);
              return null;
            });
    Future<?>[] readers = new Future<?>[2];
    for (int r = 0; r < readers.length; r++) {
      readers[r] =
          pool.submit(
              () -> {
                while (!done.get()) {
                  // Raw bytes, no lock: a rename is the only thing between a reader and a part.
                  SessionRecord seen =
                      RecordFormat.read(Files.readAllBytes(file), platform.identityClock());
                  assertThat(published).contains(seen.token());
                  reads.incrementAndGet();
                }
                return null;
              });
    }
    writer.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    for (Future<?> reader : readers) {
      reader.get(DEADLINE.toSeconds(), TimeUnit.SECONDS); // rethrows NoSuchFile or Unreadable
    }
    assertThat(reads.get()).as("readers overlapped the publishes").isGreaterThan(100);
    try (var files = Files.list(store.directory())) {
      assertThat(files.filter(p -> p.getFileName().toString().endsWith(".tmp"))).isEmpty();
    }
  }

  @Test
  void successorPublishingWhileThePredecessorClearsSurvives() throws Exception {
    Outcome outcome = predecessorPausedAfterReadWhileSuccessorPublishes(true);
    assertThat(outcome.clearedOwnRecord).isTrue();
    assertThat(outcome.surviving).isEqualTo(outcome.successor.token());
  }

  /** The same interleaving without the lock: the successor's record is lost. */
  @Test
  void withoutTheLockReadThenDeleteLosesTheSuccessor() throws Exception {
    Outcome outcome = predecessorPausedAfterReadWhileSuccessorPublishes(false);
    assertThat(outcome.clearedOwnRecord).isTrue();
    assertThat(outcome.surviving).as("successor's record deleted by its predecessor").isNull();
  }

  private record Outcome(SessionRecord successor, boolean clearedOwnRecord, String surviving) {}

  private Outcome predecessorPausedAfterReadWhileSuccessorPublishes(boolean locking)
      throws Exception {
    CountDownLatch read = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    RecordStore plain = RecordStore.open(tmp.resolve("records"), platform);
    RecordStore paused =
        plain.withTestHooks(
            new RecordStore.TestHooks(
                name -> {
                  read.countDown();
                  await(resume);
                },
                locking));
    SessionRecord predecessor = generation(1);
    SessionRecord successor = generation(2);
    plain.publish("broker", predecessor);

    Future<Boolean> clear =
        pool.submit(() -> paused.compareAndClear("broker", predecessor.token()));
    await(read); // the predecessor has read its own record and is about to delete
    Future<?> publish =
        pool.submit(
            () -> {
              paused.publish("broker", successor);
              return null;
            });
    if (locking) {
      Await.until(
          DEADLINE, "a waiter on the lock", () -> RecordLock.hasWaiters(plain.lockFile("broker")));
      assertThat(publish).as("publish waits for the lock").isNotDone();
    } else {
      publish.get(DEADLINE.toSeconds(), TimeUnit.SECONDS); // nothing stops it
    }
    resume.countDown();
    boolean cleared = clear.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    publish.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

    String surviving = null;
    try {
      surviving =
          RecordFormat.read(
                  Files.readAllBytes(plain.recordFile("broker")), platform.identityClock())
              .token();
    } catch (NoSuchFileException gone) {
      // surviving stays null
    }
    return new Outcome(successor, cleared, surviving);
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
