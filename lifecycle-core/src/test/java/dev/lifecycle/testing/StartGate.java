package dev.lifecycle.testing;

import java.util.concurrent.CountDownLatch;

/**
 * Threads released at once, for races: each thread started here waits at the gate until {@link
 * #open()}. A thread interrupted while it waits ends without running its body.
 */
public final class StartGate {
  private final CountDownLatch open = new CountDownLatch(1);

  /** Starts a thread that runs {@code body} once the gate opens. */
  public Thread start(Runnable body) {
    Thread thread =
        new Thread(
            () -> {
              try {
                open.await();
              } catch (InterruptedException e) {
                return;
              }
              body.run();
            });
    thread.start();
    return thread;
  }

  /** Releases every thread waiting at the gate, and lets later ones through at once. */
  public void open() {
    open.countDown();
  }
}
