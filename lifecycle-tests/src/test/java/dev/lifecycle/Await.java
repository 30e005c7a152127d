package dev.lifecycle;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.procfs.ProcFs;
import java.time.Duration;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * Bounded polling for the cross-module tests: never sleep for a fixed time, never wait without a
 * deadline. The one poll helper of this module (tree, broker, tether and worker tests share it).
 */
public final class Await {
  private Await() {}

  public static <T> T until(
      Duration timeout, String what, Supplier<T> probe, java.util.function.Predicate<T> done) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long delay = 2;
    T last = probe.get();
    while (!done.test(last)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + timeout + ": " + what + " (last: " + last + ")");
      }
      sleep(delay);
      delay = Math.min(100, delay * 2);
      last = probe.get();
    }
    return last;
  }

  public static void until(
      Duration timeout, String what, java.util.function.BooleanSupplier condition) {
    until(timeout, what, condition::getAsBoolean, Boolean::booleanValue);
  }

  /** Gone: no such process, a zombie (PID 1 here reaps late), or the pid names another process. */
  public static boolean isGone(ProcessIdentity identity) {
    return ProcFs.stat(identity.pid())
        .map(
            row ->
                row.hasExited()
                    || identity.match(row.identity(ProcFs.bootId()))
                        == ProcessIdentity.Match.DIFFERENT)
        .orElse(true);
  }

  public static void allGone(Duration timeout, Collection<ProcessIdentity> identities) {
    until(
        timeout,
        "processes gone",
        () -> identities.stream().filter(id -> !isGone(id)).toList(),
        java.util.List::isEmpty);
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
