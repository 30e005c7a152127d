package dev.lifecycle.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.testing.ManualScheduler;
import dev.lifecycle.testing.StartGate;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class GuardsTest {
  private static final Duration NANO = Duration.ofNanos(1);

  private final ManualScheduler scheduler = new ManualScheduler();
  private final AtomicInteger fired = new AtomicInteger();

  @Test
  void disabledLimitSchedulesNothing() {
    TimerScheduler refusing =
        new TimerScheduler() {
          @Override
          public TimerHandle schedule(Duration delay, Runnable task) {
            throw new AssertionError("scheduled " + delay);
          }

          @Override
          public long nanoTime() {
            throw new AssertionError("nanoTime");
          }
        };
    assertThat(Guards.arm(Limit.disabled(), fired::incrementAndGet, refusing))
        .isSameAs(TimerHandle.NONE);

    TimerHandle handle = Guards.arm(Limit.parse("0"), fired::incrementAndGet, scheduler);
    assertThat(handle).isSameAs(TimerHandle.NONE);
    assertThat(handle.isArmed()).isFalse();
    assertThat(handle.cancel()).isFalse();
    assertThat(handle.cancel()).isFalse();
    scheduler.advance(Limit.MAX);
    assertThat(scheduler.scheduled()).isEmpty();
    assertThat(fired).hasValue(0);
  }

  @Test
  void enabledLimitFiresOnceWhenDue() {
    TimerHandle handle = Guards.arm(Limit.ofSeconds(5), fired::incrementAndGet, scheduler);
    assertThat(handle.isArmed()).isTrue();
    scheduler.advance(Duration.ofSeconds(5).minus(NANO));
    assertThat(fired).hasValue(0);
    scheduler.advance(NANO);
    assertThat(fired).hasValue(1);
    assertThat(handle.isArmed()).isFalse();
    assertThat(handle.cancel()).as("cancel after firing").isFalse();
    scheduler.advance(Duration.ofDays(1));
    assertThat(fired).hasValue(1);
  }

  @Test
  void cancelledGuardNeverFires() {
    TimerHandle handle = Guards.arm(Limit.ofSeconds(5), fired::incrementAndGet, scheduler);
    assertThat(handle.cancel()).isTrue();
    assertThat(handle.cancel()).as("second cancel").isFalse();
    assertThat(handle.isArmed()).isFalse();
    scheduler.advance(Duration.ofDays(1));
    assertThat(fired).hasValue(0);
  }

  @Test
  void thirtyDaysDoNotFireEarly() {
    Guards.arm(Limit.parse("30d"), fired::incrementAndGet, scheduler);
    assertThat(scheduler.scheduled()).containsExactly(Duration.ofDays(30));
    scheduler.advance(Duration.ofDays(30).minus(NANO));
    assertThat(fired).hasValue(0);
    scheduler.advance(NANO);
    assertThat(fired).hasValue(1);
  }

  @Test
  void clampedCenturyDoesNotFireEarly() {
    Guards.arm(Limit.ofDays(Long.MAX_VALUE), fired::incrementAndGet, scheduler);
    assertThat(scheduler.scheduled()).containsExactly(Limit.MAX);
    scheduler.advance(Limit.MAX.minus(NANO));
    assertThat(fired).hasValue(0);
    scheduler.advance(NANO);
    assertThat(fired).hasValue(1);
  }

  @Test
  void systemSchedulerKeepsLongDelaysWhole() {
    TimerScheduler system = TimerScheduler.system();
    var thirtyDays =
        (SystemTimerScheduler.Task) Guards.arm(Limit.parse("30d"), fired::incrementAndGet);
    var century =
        (SystemTimerScheduler.Task) Guards.arm(Limit.ofDays(1_000_000), fired::incrementAndGet);
    var huge =
        (SystemTimerScheduler.Task)
            system.schedule(Duration.ofSeconds(Long.MAX_VALUE), fired::incrementAndGet);
    try {
      assertThat(thirtyDays.remainingNanos())
          .isBetween(Duration.ofDays(30).minusMinutes(1).toNanos(), Duration.ofDays(30).toNanos());
      for (var task : new SystemTimerScheduler.Task[] {century, huge}) {
        assertThat(task.remainingNanos())
            .isBetween(Limit.MAX.minusMinutes(1).toNanos(), Limit.MAX.toNanos());
      }
      assertThat(thirtyDays.isArmed()).isTrue();
    } finally {
      assertThat(thirtyDays.cancel()).isTrue();
      assertThat(century.cancel()).isTrue();
      assertThat(huge.cancel()).isTrue();
    }
    assertThat(fired).hasValue(0);
  }

  @Test
  void systemSchedulerFiresOnADaemonThreadAndSkipsCancelled() throws InterruptedException {
    AtomicReference<Thread> thread = new AtomicReference<>();
    AtomicInteger cancelledRan = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(1);
    TimerHandle cancelled = Guards.arm(Limit.ofMillis(20), cancelledRan::incrementAndGet);
    Guards.arm(
        Limit.ofMillis(60),
        () -> {
          thread.set(Thread.currentThread());
          done.countDown();
        });
    assertThat(cancelled.cancel()).isTrue();
    assertThat(done.await(2, TimeUnit.SECONDS)).isTrue();
    assertThat(thread.get().getName()).isEqualTo("lifecycle-timer");
    assertThat(thread.get().isDaemon()).isTrue();
    assertThat(cancelledRan).hasValue(0); // the 20 ms task was due before the 60 ms one ran
  }

  @Test
  void systemSchedulerSurvivesAThrowingTask() throws InterruptedException {
    TimerScheduler system = TimerScheduler.system();
    assertThat(TimerScheduler.system()).isSameAs(system);
    CountDownLatch after = new CountDownLatch(1);
    PrintStream originalErr = System.err; // slf4j-simple looks System.err up on every call
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    TimerHandle failing;
    try {
      failing =
          system.schedule(
              Duration.ZERO,
              () -> {
                throw new IllegalStateException("deliberate test failure");
              });
      system.schedule(Duration.ofMillis(10), after::countDown);
      assertThat(after.await(2, TimeUnit.SECONDS)).isTrue();
    } finally {
      System.setErr(originalErr);
    }
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains("ERROR")
        .contains("deliberate test failure");
    assertThat(failing.isArmed()).isFalse();
    assertThat(failing.cancel()).isFalse();
  }

  @Test
  void systemSchedulerRejectsNegativeDelay() {
    assertThatThrownBy(() -> TimerScheduler.system().schedule(Duration.ofMillis(-1), () -> {}))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void exactlyOneConcurrentCancelWins() throws InterruptedException {
    for (int round = 0; round < 20; round++) {
      TimerHandle handle = Guards.arm(Limit.ofMinutes(1), fired::incrementAndGet);
      AtomicInteger wins = new AtomicInteger();
      StartGate gate = new StartGate();
      Thread[] threads = new Thread[8];
      for (int i = 0; i < threads.length; i++) {
        threads[i] =
            gate.start(
                () -> {
                  if (handle.cancel()) {
                    wins.incrementAndGet();
                  }
                });
      }
      gate.open();
      for (Thread t : threads) {
        t.join(2_000);
      }
      assertThat(wins).hasValue(1);
      assertThat(handle.isArmed()).isFalse();
    }
  }
}
