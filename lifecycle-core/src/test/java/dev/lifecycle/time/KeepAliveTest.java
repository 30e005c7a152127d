package dev.lifecycle.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class KeepAliveTest {
  private static final Duration BOUND = Duration.ofSeconds(2);

  private final ManualScheduler scheduler = new ManualScheduler();
  private final AtomicInteger ran = new AtomicInteger();

  @Test
  void openTokenMeansALiveNonDaemonThread() throws InterruptedException {
    int before = KeepAlive.openTokens();
    KeepAlive first = KeepAlive.acquire();
    KeepAlive second = KeepAlive.acquire();
    Thread keeper = KeepAlive.keeper();
    assertThat(keeper).isNotNull();
    assertThat(keeper.isAlive()).isTrue();
    assertThat(keeper.isDaemon()).isFalse();
    assertThat(keeper.getName()).isEqualTo("lifecycle-keepalive");
    assertThat(KeepAlive.openTokens()).isEqualTo(before + 2);

    first.close();
    first.close(); // idempotent: must not release the second token's hold
    assertThat(first.isOpen()).isFalse();
    assertThat(KeepAlive.openTokens()).isEqualTo(before + 1);
    keeper.join(50);
    assertThat(keeper.isAlive()).isTrue();

    second.close();
    if (before == 0) {
      keeper.join(BOUND.toMillis());
      assertThat(keeper.isAlive()).as("keeper ends after the last close").isFalse();
    }
    assertThat(KeepAlive.openTokens()).isEqualTo(before);
  }

  @Test
  void oneKeeperServesAllTokensEvenRightAfterTheLastClose() throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      KeepAlive.acquire().close(); // the keeper may still be on its way out
      try (KeepAlive first = KeepAlive.acquire()) {
        Thread keeper = KeepAlive.keeper();
        try (KeepAlive second = KeepAlive.acquire()) {
          assertThat(KeepAlive.keeper()).as("no second keeper").isSameAs(keeper);
        }
        keeper.join(1);
        assertThat(keeper.isAlive()).as("keeper alive while a token is open").isTrue();
      }
    }
  }

  @Test
  void escalationHoldsATokenUntilTheStepRan() {
    int before = KeepAlive.openTokens();
    TimerHandle handle =
        Guards.armEscalation(Duration.ofSeconds(5), ran::incrementAndGet, scheduler);
    assertThat(handle.isArmed()).isTrue();
    assertThat(KeepAlive.openTokens()).isEqualTo(before + 1);
    scheduler.advance(Duration.ofSeconds(5).minusNanos(1));
    assertThat(KeepAlive.openTokens()).isEqualTo(before + 1);
    scheduler.advance(Duration.ofNanos(1));
    assertThat(ran).hasValue(1);
    assertThat(KeepAlive.openTokens()).isEqualTo(before);
    assertThat(handle.cancel()).isFalse();
    assertThat(KeepAlive.openTokens()).isEqualTo(before);
  }

  @Test
  void escalationReleasesItsTokenWhenTheStepThrows() {
    int before = KeepAlive.openTokens();
    Guards.armEscalation(
        Duration.ZERO,
        () -> {
          throw new IllegalStateException("kill failed");
        },
        scheduler);
    scheduler.advance(Duration.ZERO);
    assertThat(scheduler.failures()).hasSize(1);
    assertThat(KeepAlive.openTokens()).isEqualTo(before);
  }

  @Test
  void cancelledEscalationReleasesItsTokenOnce() {
    try (KeepAlive other = KeepAlive.acquire()) {
      int before = KeepAlive.openTokens();
      TimerHandle handle =
          Guards.armEscalation(Duration.ofSeconds(1), ran::incrementAndGet, scheduler);
      assertThat(handle.cancel()).isTrue();
      assertThat(handle.cancel()).isFalse();
      assertThat(KeepAlive.openTokens()).isEqualTo(before); // not before - 1
      scheduler.advance(Duration.ofSeconds(2));
      assertThat(ran).hasValue(0);
      assertThat(KeepAlive.openTokens()).isEqualTo(before);
    }
  }

  @Test
  void escalationThatCannotBeScheduledReleasesItsToken() {
    int before = KeepAlive.openTokens();
    TimerScheduler shutDown = ManualScheduler.shutDown();
    assertThatThrownBy(
            () -> Guards.armEscalation(Duration.ofSeconds(1), ran::incrementAndGet, shutDown))
        .isInstanceOf(RejectedExecutionException.class);
    assertThat(KeepAlive.openTokens()).isEqualTo(before);
    assertThatThrownBy(
            () -> Guards.armEscalation(Duration.ofSeconds(-1), ran::incrementAndGet, scheduler))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(KeepAlive.openTokens()).isEqualTo(before);
  }

  @Test
  void systemEscalationRunsAndReleases() {
    int before = KeepAlive.openTokens();
    Guards.armEscalation(Duration.ofMillis(20), ran::incrementAndGet);
    Await.until(BOUND, "the escalation ran", () -> ran.get() == 1);
    Await.until(BOUND, "the token was released", () -> KeepAlive.openTokens() == before);
  }
}
