package dev.lifecycle.broker;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/** One attempt per key in this JVM: concurrent callers share the leader's outcome. Thread-safe. */
final class SingleFlight<K, V> {
  /** The attempt. */
  @FunctionalInterface
  interface Attempt<V> {
    V run() throws IOException;
  }

  private final ConcurrentHashMap<K, CompletableFuture<V>> inFlight = new ConcurrentHashMap<>();

  /** Runs {@code attempt} unless one for {@code key} is under way, then returns its outcome. */
  V run(K key, Attempt<V> attempt) throws IOException {
    CompletableFuture<V> mine = new CompletableFuture<>();
    CompletableFuture<V> flight = inFlight.putIfAbsent(key, mine);
    if (flight == null) { // this thread leads; the others of this JVM share its outcome
      try {
        mine.complete(attempt.run());
      } catch (Throwable t) {
        mine.completeExceptionally(t);
      } finally {
        inFlight.remove(key, mine);
      }
      flight = mine;
    }
    try {
      return flight.join();
    } catch (CompletionException e) {
      // Rethrown as a fresh exception so each caller gets its own stack trace.
      Throwable cause = e.getCause();
      if (cause instanceof BrokerException b) {
        throw new BrokerException(b.getMessage(), b.pid().orElse(0), b);
      }
      if (cause instanceof IOException io) {
        throw new IOException(io.getMessage(), io);
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }
}
