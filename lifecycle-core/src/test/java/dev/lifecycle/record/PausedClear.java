package dev.lifecycle.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A predecessor caught between the read and the delete of its compare-and-clear: {@link #store()}
 * is a store whose {@code compareAndClear}, once it has read the record, waits for {@link
 * #resume()}. Every wait is bounded.
 */
final class PausedClear {
  private final CountDownLatch read = new CountDownLatch(1);
  private final CountDownLatch resume = new CountDownLatch(1);
  private final Duration bound;
  private final RecordStore store;

  /** {@code plain} paused after each clear's read, with or without the record lock. */
  PausedClear(RecordStore plain, boolean locking, Duration bound) {
    this.bound = bound;
    this.store =
        plain.withTestHooks(
            new RecordStore.TestHooks(
                name -> {
                  read.countDown();
                  await(resume);
                },
                locking));
  }

  /** The paused store. */
  RecordStore store() {
    return store;
  }

  /** Returns once a compare-and-clear has read the record and is about to delete it. */
  void awaitRead() {
    await(read);
  }

  /** Lets the paused compare-and-clear go on. */
  void resume() {
    resume.countDown();
  }

  private void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(bound.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
