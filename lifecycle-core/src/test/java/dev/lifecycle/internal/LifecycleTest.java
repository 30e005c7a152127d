package dev.lifecycle.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class LifecycleTest {

  @Test
  void startsOnceAndNeverAfterAStop() {
    Lifecycle<String, String> started = new Lifecycle<>();
    assertThat(started.start()).isTrue();
    assertThat(started.start()).isFalse();
    assertThat(started.isStarted()).isTrue();

    Lifecycle<String, String> stoppedFirst = new Lifecycle<>();
    assertThat(stoppedFirst.stop("closed")).isTrue();
    assertThat(stoppedFirst.start()).isFalse();
    assertThat(stoppedFirst.isStarted()).isFalse();
  }

  @Test
  void theFirstOfTwoRacingReasonsWinsAndCancelsTheGuardsOnce() throws Exception {
    for (int round = 0; round < 500; round++) {
      Lifecycle<String, String> life = new Lifecycle<>();
      life.start();
      AtomicInteger cancelled = new AtomicInteger();
      life.guard(cancelled::incrementAndGet);
      CyclicBarrier together = new CyclicBarrier(2);
      boolean[] won = new boolean[2];
      Thread[] threads = new Thread[2];
      for (int i = 0; i < 2; i++) {
        int me = i;
        threads[i] =
            new Thread(
                () -> {
                  try {
                    together.await();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                  won[me] = life.stop("reason " + me);
                });
        threads[i].start();
      }
      for (Thread thread : threads) {
        thread.join();
      }
      assertThat(won[0] ^ won[1]).as("exactly one stop wins").isTrue();
      assertThat(life.reason()).contains(won[0] ? "reason 0" : "reason 1");
      assertThat(cancelled).hasValue(1);
      assertThat(life.stop("later")).isFalse();
      assertThat(life.reason()).contains(won[0] ? "reason 0" : "reason 1");
    }
  }

  @Test
  void aGuardArmedAfterTheStopIsCancelledAtOnce() {
    Lifecycle<String, String> life = new Lifecycle<>();
    life.start();
    life.stop("closed");
    AtomicInteger cancelled = new AtomicInteger();
    life.guard(cancelled::incrementAndGet);
    assertThat(cancelled).hasValue(1);
  }

  @Test
  void theReportIsCompletedOnceAndCallersCannotCompleteIt() {
    Lifecycle<String, String> life = new Lifecycle<>();
    CompletableFuture<String> seen = life.report();
    seen.complete("forged");
    assertThat(life.report()).isNotDone();

    assertThat(life.complete("first")).isTrue();
    assertThat(life.complete("second")).isFalse();
    assertThat(life.fail(new IllegalStateException())).isFalse();
    assertThat(life.awaitReport()).isEqualTo("first");
    assertThat(life.report().join()).isEqualTo("first");
  }
}
