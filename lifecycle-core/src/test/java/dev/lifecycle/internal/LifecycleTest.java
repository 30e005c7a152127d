package dev.lifecycle.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.FutureTask;
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
      FutureTask<Boolean> first = new FutureTask<>(() -> stopTogether(life, "reason 0", together));
      FutureTask<Boolean> second = new FutureTask<>(() -> stopTogether(life, "reason 1", together));
      new Thread(first).start();
      new Thread(second).start();
      boolean[] won = {first.get(), second.get()};
      assertThat(won[0] ^ won[1]).as("exactly one stop wins").isTrue();
      assertThat(life.reason()).contains(won[0] ? "reason 0" : "reason 1");
      assertThat(cancelled).hasValue(1);
      assertThat(life.stop("later")).isFalse();
      assertThat(life.reason()).contains(won[0] ? "reason 0" : "reason 1");
    }
  }

  private static boolean stopTogether(
      Lifecycle<String, String> life, String why, CyclicBarrier together) throws Exception {
    together.await();
    return life.stop(why);
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

  @Test
  void aGuardThatThrowsDoesNotKeepTheOthersArmed() {
    Lifecycle<String, String> life = new Lifecycle<>();
    AtomicInteger cancelled = new AtomicInteger();
    life.guard(
        () -> {
          throw new IllegalStateException("first");
        });
    life.guard(cancelled::incrementAndGet);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> life.stop("why")))
        .hasMessage("first");
    assertThat(cancelled).hasValue(1);
    assertThat(life.reason()).contains("why");
  }
}
