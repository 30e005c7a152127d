package dev.lifecycle.testing;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Bounded polling for lifecycle's tests: never sleep for a fixed time, never wait without a
 * deadline. Pauses start at 2 ms and double up to 100 ms. The one poll helper of every module's
 * tests (shared through lifecycle-core's test jar). Stateless.
 */
public final class Await {
  private Await() {}

  /**
   * Polls {@code probe} until {@code done} accepts its answer.
   *
   * @return the accepted answer
   * @throws AssertionError naming {@code what} and the last answer when {@code timeout} passes
   */
  public static <T> T until(Duration timeout, String what, Supplier<T> probe, Predicate<T> done) {
    T last = within(timeout, probe, done);
    if (!done.test(last)) {
      throw new AssertionError("not within " + timeout + ": " + what + " (last: " + last + ")");
    }
    return last;
  }

  /**
   * Polls {@code probe} until {@code done} accepts its answer or {@code timeout} passes (it is
   * asked at least once, and once more at the deadline): for waits whose caller judges or reports
   * the last answer itself.
   *
   * @return the accepted answer, or the last one when {@code timeout} passed
   */
  public static <T> T within(Duration timeout, Supplier<T> probe, Predicate<T> done) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long delay = 2;
    T last = probe.get();
    while (!done.test(last)) {
      if (System.nanoTime() - deadline > 0) {
        return probe.get();
      }
      sleep(delay);
      delay = Math.min(100, delay * 2);
      last = probe.get();
    }
    return last;
  }

  /**
   * Polls {@code condition} until it holds or {@code timeout} passes (it is asked at least once,
   * and once more at the deadline): for waits whose outcome the test asserts either way, e.g. that
   * something does not happen within a window.
   *
   * @return whether the condition held
   */
  public static boolean within(Duration timeout, BooleanSupplier condition) {
    return within(timeout, condition::getAsBoolean, Boolean::booleanValue);
  }

  /**
   * Polls {@code condition} until it holds.
   *
   * @throws AssertionError naming {@code what} when {@code timeout} passes
   */
  public static void until(Duration timeout, String what, BooleanSupplier condition) {
    until(timeout, what, condition::getAsBoolean, Boolean::booleanValue);
  }

  /**
   * Gone: no such process, a zombie (an init that reaps late keeps it), or the pid names another
   * process now.
   */
  public static boolean isGone(ProcessIdentity identity) {
    ProcessPlatform platform = ProcessPlatform.get();
    String boot = platform.self().bootId();
    return platform
        .info(identity.pid())
        .map(
            row ->
                row.hasExited()
                    || identity.match(row.identity(boot)) == ProcessIdentity.Match.DIFFERENT)
        .orElse(true);
  }

  /** Polls until every one of {@code identities} {@link #isGone is gone}. */
  public static void allGone(Duration timeout, Collection<ProcessIdentity> identities) {
    until(
        timeout,
        "processes gone",
        () -> identities.stream().filter(id -> !isGone(id)).toList(),
        List::isEmpty);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
