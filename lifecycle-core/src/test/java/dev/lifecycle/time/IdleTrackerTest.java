package dev.lifecycle.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.ManualScheduler;
import dev.lifecycle.testing.StartGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdleTrackerTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(10);
  private static final Duration NANO = Duration.ofNanos(1);

  private final ManualScheduler scheduler = new ManualScheduler();
  private final AtomicInteger idle = new AtomicInteger();

  private IdleTracker tracker(Limit timeout) {
    return IdleTracker.builder()
        .timeout(timeout)
        .scheduler(scheduler)
        .onIdle(idle::incrementAndGet)
        .build();
  }

  private IdleTracker tracker() {
    return tracker(Limit.of(TIMEOUT));
  }

  @Test
  void armedAtBuildSoATrackerWithoutClientsIdlesOut() {
    IdleTracker tracker = tracker();
    assertThat(tracker.isIdleTimerArmed()).isTrue();
    assertThat(scheduler.scheduled()).containsExactly(TIMEOUT);
    scheduler.advance(TIMEOUT.minus(NANO));
    assertThat(idle).hasValue(0);
    scheduler.advance(NANO);
    assertThat(idle).hasValue(1);
    assertThat(tracker.isIdleTimerArmed()).isFalse();
  }

  @Test
  void acquireCancelsThePendingTimer() {
    IdleTracker tracker = tracker();
    IdleTracker.Lease lease = tracker.acquire();
    assertThat(tracker.isIdleTimerArmed()).isFalse();
    assertThat(tracker.activeLeases()).isEqualTo(1);
    assertThat(scheduler.pending()).isZero();
    scheduler.advance(TIMEOUT.multipliedBy(10));
    assertThat(idle).hasValue(0);
    assertThat(lease.isOpen()).isTrue();
  }

  @Test
  void armedExactlyWhenTheLastLeaseCloses() {
    IdleTracker tracker = tracker();
    IdleTracker.Lease first = tracker.acquire();
    IdleTracker.Lease second = tracker.acquire();
    first.close();
    assertThat(tracker.isIdleTimerArmed()).isFalse();
    scheduler.advance(TIMEOUT.multipliedBy(2));
    assertThat(idle).hasValue(0);
    second.close();
    assertThat(tracker.isIdleTimerArmed()).isTrue();
    assertThat(tracker.activeLeases()).isZero();
    scheduler.advance(TIMEOUT.minus(NANO));
    assertThat(idle).hasValue(0);
    scheduler.advance(NANO);
    assertThat(idle).hasValue(1);
  }

  @Test
  void doubleCloseDecrementsOnce() {
    IdleTracker tracker = tracker();
    IdleTracker.Lease first = tracker.acquire();
    tracker.acquire();
    first.close();
    first.close();
    assertThat(first.isOpen()).isFalse();
    assertThat(tracker.activeLeases()).isEqualTo(1);
    assertThat(tracker.isIdleTimerArmed()).isFalse();
    scheduler.advance(TIMEOUT.multipliedBy(2));
    assertThat(idle).hasValue(0);
  }

  @ParameterizedTest(name = "connection closes first: {0}")
  @ValueSource(booleans = {true, false})
  void closeOrderOfConnectionAndRequestDoesNotMatter(boolean connectionFirst) {
    IdleTracker tracker = tracker();
    IdleTracker.Lease connection = tracker.acquire();
    IdleTracker.Lease request = tracker.acquire();
    (connectionFirst ? connection : request).close(); // disconnect, or request continuation
    assertThat(tracker.isIdleTimerArmed()).isFalse();
    (connectionFirst ? request : connection).close();
    assertThat(tracker.isIdleTimerArmed()).isTrue();
    scheduler.advance(TIMEOUT);
    assertThat(idle).hasValue(1);
  }

  @Test
  void staleTimerWithNoLeasesOpenDoesNotFire() {
    TimerScheduler uncancellable = uncancellable();
    IdleTracker tracker =
        IdleTracker.builder()
            .timeout(Limit.of(TIMEOUT))
            .scheduler(uncancellable)
            .onIdle(idle::incrementAndGet)
            .build(); // timer A due at 10 min
    scheduler.advance(Duration.ofMinutes(5));
    tracker.acquire().close(); // timer A stale; timer B due at 15 min
    scheduler.advance(Duration.ofMinutes(5)); // A runs with zero leases open
    assertThat(idle).as("stale timer fired").hasValue(0);
    scheduler.advance(Duration.ofMinutes(5));
    assertThat(idle).hasValue(1);
  }

  @Test
  void timerFiringAfterCloseDoesNothing() {
    IdleTracker tracker =
        IdleTracker.builder()
            .timeout(Limit.of(TIMEOUT))
            .scheduler(uncancellable())
            .onIdle(idle::incrementAndGet)
            .build();
    tracker.close();
    scheduler.advance(TIMEOUT);
    assertThat(idle).hasValue(0);
  }

  @Test
  void firesAtMostOncePerIdlePeriodAndRearmsAfterActivity() {
    IdleTracker tracker = tracker();
    scheduler.advance(TIMEOUT);
    scheduler.advance(TIMEOUT.multipliedBy(5));
    assertThat(idle).hasValue(1);
    assertThat(scheduler.scheduled()).hasSize(1);
    tracker.acquire().close();
    scheduler.advance(TIMEOUT);
    assertThat(idle).hasValue(2);
  }

  @Test
  void failingCallbackLeavesTheTrackerConsistent() {
    AtomicInteger calls = new AtomicInteger();
    IdleTracker tracker =
        IdleTracker.builder()
            .timeout(Limit.of(TIMEOUT))
            .scheduler(scheduler)
            .onIdle(
                () -> {
                  calls.incrementAndGet();
                  throw new IllegalStateException("deliberate: shutdown failed");
                })
            .build();
    scheduler.advance(TIMEOUT);
    assertThat(calls).hasValue(1);
    assertThat(scheduler.failures()).as("logged by the tracker, not thrown").isEmpty();
    assertThat(tracker.activeLeases()).isZero();
    assertThat(tracker.isIdleTimerArmed()).isFalse();
    IdleTracker.Lease lease = tracker.acquire();
    lease.close();
    assertThat(tracker.isIdleTimerArmed()).isTrue();
    scheduler.advance(TIMEOUT);
    assertThat(calls).hasValue(2);
  }

  @Test
  void disabledTimeoutNeverArms() {
    IdleTracker tracker = tracker(Limit.disabled());
    tracker.acquire().close();
    IdleTracker.Lease lease = tracker.acquire();
    lease.close();
    assertThat(scheduler.scheduled()).isEmpty();
    assertThat(tracker.isIdleTimerArmed()).isFalse();
    scheduler.advance(Limit.MAX);
    assertThat(idle).hasValue(0);
  }

  @Test
  void closeCancelsAndStopsFutureArming() {
    IdleTracker tracker = tracker();
    tracker.close();
    tracker.close();
    assertThat(tracker.isIdleTimerArmed()).isFalse();
    assertThat(scheduler.pending()).isZero();
    IdleTracker.Lease lease = tracker.acquire();
    assertThat(tracker.activeLeases()).isEqualTo(1);
    lease.close();
    assertThat(scheduler.scheduled()).hasSize(1);
    scheduler.advance(TIMEOUT.multipliedBy(2));
    assertThat(idle).hasValue(0);
  }

  @Test
  void schedulerFailureNeverEscapesLeaseClose() {
    TimerScheduler shutDown = ManualScheduler.shutDown();
    IdleTracker tracker =
        IdleTracker.builder()
            .timeout(Limit.of(TIMEOUT))
            .scheduler(shutDown)
            .onIdle(() -> {})
            .build();
    IdleTracker.Lease lease = tracker.acquire();
    lease.close();
    assertThat(tracker.activeLeases()).isZero();
    assertThat(tracker.isIdleTimerArmed()).isFalse();
  }

  @Test
  void builderRequiresTimeoutAndCallback() {
    assertThatThrownBy(() -> IdleTracker.builder().onIdle(() -> {}).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("timeout");
    assertThatThrownBy(() -> IdleTracker.builder().timeout(Limit.ofSeconds(1)).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("onIdle");
  }

  @Test
  void racingClosesFromManyThreadsLeaveExactlyOneIdlePeriod() throws Exception {
    IdleTracker tracker = tracker();
    int threads = 16;
    int rounds = 500;
    ExecutorService continuations = Executors.newFixedThreadPool(4);
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(threads);
    List<Thread> workers = new ArrayList<>();
    try {
      for (int i = 0; i < threads; i++) {
        Thread worker =
            new Thread(
                () -> {
                  try {
                    start.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int r = 0; r < rounds; r++) {
                      IdleTracker.Lease connection = tracker.acquire();
                      IdleTracker.Lease request = tracker.acquire();
                      if (random.nextBoolean()) {
                        // the request's continuation completes on another thread
                        continuations.execute(request::close);
                        connection.close();
                      } else {
                        connection.close();
                        request.close();
                        request.close();
                      }
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  } finally {
                    done.countDown();
                  }
                });
        worker.start();
        workers.add(worker);
      }
      start.countDown();
      assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
      continuations.shutdown();
      assertThat(continuations.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    } finally {
      continuations.shutdownNow();
      for (Thread worker : workers) {
        worker.interrupt();
      }
    }
    assertThat(tracker.activeLeases()).isZero();
    assertThat(tracker.isIdleTimerArmed()).isTrue();
    assertThat(scheduler.pending()).isEqualTo(1);
    scheduler.advance(TIMEOUT.minus(NANO));
    assertThat(idle).hasValue(0);
    scheduler.advance(NANO);
    assertThat(idle).hasValue(1);
    scheduler.advance(TIMEOUT.multipliedBy(3));
    assertThat(idle).hasValue(1);
  }

  @Test
  void firingRacingWithActivityNeverLeavesTheTrackerDisarmed() throws Exception {
    Duration timeout = Duration.ofMillis(1);
    IdleTracker tracker = tracker(Limit.of(timeout));
    StartGate gate = new StartGate();
    Thread clock =
        gate.start(
            () -> {
              for (int i = 0; i < 20_000; i++) {
                scheduler.advance(
                    Duration.ofNanos(ThreadLocalRandom.current().nextLong(1, 2_000_000)));
              }
            });
    gate.open();
    for (int i = 0; i < 20_000; i++) {
      tracker.acquire().close();
    }
    clock.join(20_000);
    assertThat(clock.isAlive()).isFalse();
    // Whatever the interleaving, the tracker is consistent and still arms and fires normally.
    assertThat(tracker.activeLeases()).isZero();
    assertThat(scheduler.failures()).isEmpty();
    scheduler.advance(timeout);
    int before = idle.get();
    tracker.acquire().close();
    scheduler.advance(timeout);
    assertThat(idle).hasValue(before + 1);
  }

  @Test
  void firesOnTheSystemScheduler() {
    CountDownLatch fired = new CountDownLatch(1);
    try (IdleTracker tracker =
        IdleTracker.builder().timeout(Limit.ofMillis(50)).onIdle(fired::countDown).build()) {
      IdleTracker.Lease lease = tracker.acquire();
      Await.until(Duration.ofSeconds(1), "lease counted", () -> tracker.activeLeases() == 1);
      lease.close();
      Await.until(Duration.ofSeconds(2), "idle fired", () -> fired.getCount() == 0);
      assertThat(tracker.isIdleTimerArmed()).isFalse();
    }
  }

  private TimerScheduler uncancellable() {
    return new TimerScheduler() {
      @Override
      public TimerHandle schedule(Duration delay, Runnable task) {
        TimerHandle real = scheduler.schedule(delay, task);
        return new TimerHandle() {
          @Override
          public boolean cancel() {
            return false; // as if the timer thread had already started it
          }

          @Override
          public boolean isArmed() {
            return real.isArmed();
          }
        };
      }

      @Override
      public long nanoTime() {
        return scheduler.nanoTime();
      }
    };
  }
}
