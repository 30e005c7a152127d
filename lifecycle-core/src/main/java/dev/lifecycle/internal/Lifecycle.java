package dev.lifecycle.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The skeleton every supervised service shares: started at most once, stopped at most once with the
 * first reason given (later reasons are ignored), its guards cancelled by the stop that wins, and
 * one report completed exactly once. Thread-safe; nothing runs under its monitor but its own
 * bookkeeping, so owners may call it while holding their own locks.
 *
 * @param <R> why the service stopped
 * @param <T> the report of its one stop
 */
public final class Lifecycle<R, T> {
  private final CompletableFuture<T> report = new CompletableFuture<>();
  private final List<Runnable> guards = new ArrayList<>(); // guarded by this
  private boolean started; // guarded by this
  private R reason; // guarded by this, set once

  /**
   * Starts the service unless it was started or stopped before.
   *
   * @return whether this call started it
   */
  public synchronized boolean start() {
    if (started || reason != null) {
      return false;
    }
    started = true;
    return true;
  }

  /**
   * Stops the service with {@code why} unless a stop came first; the winner cancels every guard.
   *
   * @param why the reason, kept only if this call wins
   * @return whether this call won
   */
  public boolean stop(R why) {
    Objects.requireNonNull(why, "why");
    List<Runnable> cancelling;
    synchronized (this) {
      if (reason != null) {
        return false;
      }
      reason = why;
      cancelling = List.copyOf(guards);
      guards.clear();
    }
    RuntimeException first = null;
    for (Runnable cancel : cancelling) { // each runs even when one before it threw
      try {
        cancel.run();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
    return true;
  }

  /**
   * Registers a guard's cancellation (a timer, a watch) to run when the service stops; run at once
   * if it has stopped already, so a guard armed late never outlives the stop.
   *
   * @param cancel cancels the guard; idempotent
   */
  public void guard(Runnable cancel) {
    Objects.requireNonNull(cancel, "cancel");
    synchronized (this) {
      if (reason == null) {
        guards.add(cancel);
        return;
      }
    }
    cancel.run();
  }

  /**
   * Whether {@link #start} succeeded.
   *
   * @return true once started, also after the stop
   */
  public synchronized boolean isStarted() {
    return started;
  }

  /**
   * The reason of the stop that won.
   *
   * @return the first reason given, or empty while not stopped
   */
  public synchronized Optional<R> reason() {
    return Optional.ofNullable(reason);
  }

  /**
   * Completes the report; only the first call counts.
   *
   * @param result the report of the one stop
   * @return whether this call completed it
   */
  public boolean complete(T result) {
    return report.complete(result);
  }

  /**
   * Fails the report, when the stop itself failed; only the first completion counts.
   *
   * @param failure what went wrong
   * @return whether this call completed it
   */
  public boolean fail(Throwable failure) {
    return report.completeExceptionally(failure);
  }

  /**
   * The report of the one stop.
   *
   * @return a new future per call; completing or cancelling it does not affect the service
   */
  public CompletableFuture<T> report() {
    return report.copy();
  }

  /**
   * Blocks until the report is completed.
   *
   * @return the report
   */
  public T awaitReport() {
    return report.join();
  }
}
