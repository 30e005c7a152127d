package dev.lifecycle.broker;

/**
 * The life of a {@link BrokerRuntime}; it only ever moves forward. Immutable and thread-safe (an
 * enum).
 */
public enum BrokerState {
  /** Built, not started. */
  NEW,
  /** Starting backends and binding the listener, under the startup bound. */
  STARTING,
  /** Listening, record published, idle timer running. */
  SERVING,
  /** The one shutdown pass is running; the listener is already closed. */
  SHUTTING_DOWN,
  /** The shutdown pass has finished. */
  STOPPED
}
