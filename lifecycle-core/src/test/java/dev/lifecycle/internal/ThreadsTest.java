package dev.lifecycle.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ThreadsTest {
  @Test
  void everyThreadIsNamedAndItsDaemonFlagIsChosenNotInherited() throws Exception {
    CompletableFuture<Thread> ran = new CompletableFuture<>();
    Thread creator =
        Threads.startKeepingJvm( // a non-daemon creator: a daemon child must not inherit it
            "creator",
            () -> {
              ran.complete(Threads.startDaemon("watcher", () -> {}));
              Thread unstarted = Threads.daemon("reader", () -> {});
              assertThat(unstarted.isDaemon()).isTrue();
              assertThat(unstarted.getState()).isEqualTo(Thread.State.NEW);
            });
    creator.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(creator.isDaemon()).isFalse();
    Thread watcher = ran.get(10, TimeUnit.SECONDS);
    assertThat(watcher.getName()).isEqualTo("watcher");
    assertThat(watcher.isDaemon()).isTrue();
    Thread pooled = Threads.daemons("pool").newThread(() -> {});
    assertThat(pooled.getName()).isEqualTo("pool");
    assertThat(pooled.isDaemon()).isTrue();
  }

  @Test
  void aShutdownHookIsRegisteredUnderItsName() {
    Thread hook = Threads.shutdownHook("lifecycle-test-hook", () -> {});
    assertThat(hook.getName()).isEqualTo("lifecycle-test-hook");
    assertThat(hook.isDaemon()).isFalse();
    assertThat(Runtime.getRuntime().removeShutdownHook(hook)).isTrue(); // it was registered
  }
}
