package dev.lifecycle.testing;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * A blocking call on a daemon thread of its own, as a future the test waits on with a bound: a call
 * that never returns fails the wait, not the JVM's exit.
 */
public final class Background {
  private Background() {}

  /**
   * Starts {@code call} on a new daemon thread named {@code name}.
   *
   * @return completes with the call's value, or exceptionally with what it threw
   */
  public static <T> CompletableFuture<T> call(String name, Callable<T> call) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                result.complete(call.call());
              } catch (Throwable t) {
                result.completeExceptionally(t);
              }
            },
            name);
    thread.setDaemon(true);
    thread.start();
    return result;
  }
}
