package dev.lifecycle.broker;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.time.Limit;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Connects to a backend this caller spawns, so a failed connect never strands the backend.
 * Thread-safe (static methods only).
 *
 * <p>A failure before any transport exists (the spawn throws) is thrown as is, at once: there is
 * nothing to wait for. A failure after the backend tree exists (connect or initialize throws, or
 * exceeds its bound) terminates the whole tree (not just the direct child) within the cleanup bound
 * and throws the original error; cleanup failures and overruns are attached as suppressed.
 */
public final class Connect {
  private Connect() {}

  /** Spawns the backend. */
  @FunctionalInterface
  public interface Spawn {
    /**
     * Spawns the backend tree.
     *
     * @return the running tree
     * @throws Exception when the backend cannot be started; it is thrown to the caller as is
     */
    ProcessTree spawn() throws Exception;
  }

  /** Connects to (and initializes) a spawned backend. */
  @FunctionalInterface
  public interface Connector<T> {
    /**
     * Connects to (and initializes) {@code backend}.
     *
     * @param backend the tree {@link Spawn#spawn()} returned
     * @return the caller's handle on the connected backend
     * @throws Exception to fail the connect; the backend tree is then terminated
     */
    T connect(ProcessTree backend) throws Exception;
  }

  /**
   * {@link #withBackend(Spawn, Connector, Limit, Limit)} with {@link BrokerLimits#CONNECT}.
   *
   * @param <T> what the connector returns
   * @param spawn starts the backend
   * @param connect connects to the spawned backend
   * @param cleanupBound bounds the termination after a failure
   * @return what {@code connect} returned; the backend is then the caller's to own
   * @throws Exception the spawn's or the connect's error, after the tree was terminated
   */
  public static <T> T withBackend(Spawn spawn, Connector<T> connect, Limit cleanupBound)
      throws Exception {
    return withBackend(spawn, connect, BrokerLimits.CONNECT.resolve(), cleanupBound);
  }

  /**
   * Spawns a backend and connects to it.
   *
   * @throws Exception the spawn's or the connect's error (a {@link
   *     java.util.concurrent.TimeoutException} past {@code connectTimeout}), after the tree was
   *     terminated
   * @param <T> what the connector returns
   * @param spawn starts the backend
   * @param connect connects to the spawned backend
   * @param connectTimeout bounds {@code connect}; past it the connect counts as failed with a
   *     {@link TimeoutException} (its thread is interrupted). Disabled: {@code connect} runs on the
   *     calling thread unbounded.
   * @param cleanupBound bounds the termination after a failure: SIGTERM, half of it as grace,
   *     SIGKILL, verify. Disabled: the tree's default grace and wait for the whole termination.
   * @return what {@code connect} returned; the backend is then the caller's to own
   */
  public static <T> T withBackend(
      Spawn spawn, Connector<T> connect, Limit connectTimeout, Limit cleanupBound)
      throws Exception {
    Objects.requireNonNull(connect, "connect");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(cleanupBound, "cleanupBound");
    ProcessTree backend = Objects.requireNonNull(spawn.spawn(), "spawn returned no tree");
    try {
      return within(connectTimeout, () -> connect.connect(backend));
    } catch (Exception | Error original) {
      reclaim(backend, cleanupBound, original);
      throw original;
    }
  }

  private interface Call<T> {
    T call() throws Exception;
  }

  private static <T> T within(Limit timeout, Call<T> call) throws Exception {
    if (!timeout.isEnabled()) {
      return call.call();
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    // A daemon: a connect stuck past its bound must not keep the JVM alive.
    Thread worker =
        Threads.startDaemon(
            "lifecycle-connect",
            () -> {
              try {
                result.complete(call.call());
              } catch (Throwable t) {
                result.completeExceptionally(t);
              }
            });
    try {
      return result.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      worker.interrupt();
      throw new TimeoutException("connect did not complete within " + timeout);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception ex) {
        throw ex;
      }
      throw (Error) cause;
    }
  }

  private static void reclaim(ProcessTree backend, Limit bound, Throwable original) {
    Duration grace = bound.isEnabled() ? bound.duration().dividedBy(2) : TreeOptions.DEFAULT_GRACE;
    try {
      CompletableFuture<TerminationReport> ending = backend.terminateAsync(grace);
      TerminationReport report =
          bound.isEnabled() ? ending.get(bound.toNanos(), TimeUnit.NANOSECONDS) : ending.get();
      if (!report.noSurvivorSeen()) {
        original.addSuppressed(
            new IllegalStateException("backend " + backend + " left survivors: " + report));
      }
    } catch (TimeoutException e) {
      original.addSuppressed(
          new TimeoutException("backend " + backend + " not reclaimed within " + bound));
    } catch (ExecutionException e) {
      original.addSuppressed(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      original.addSuppressed(e);
    } catch (RuntimeException e) {
      original.addSuppressed(e);
    }
  }
}
