package dev.lifecycle.broker;

/**
 * What started a broker's shutdown pass (the first trigger wins; the rest await the same pass).
 * Immutable and thread-safe (an enum).
 */
public enum ShutdownReason {
  /** No lease was open for the idle timeout. */
  IDLE,
  /** A client or the embedding code asked for it ({@link BrokerRuntime#shutdown()}). */
  REQUEST,
  /** The JVM is exiting: SIGTERM, SIGINT, SIGHUP or {@code System.exit} (via a shutdown hook). */
  JVM_EXIT,
  /** The broker was not serving within its startup bound; its whole tree is taken down. */
  STARTUP_OVERRUN,
  /** Starting failed (a backend, the listener, the record); what was started is taken down. */
  STARTUP_FAILED,
  /**
   * A backend's leader exited while the broker started or served, and the {@link BackendExit}
   * policy chose to shut down (the default) or failed to restart it.
   */
  BACKEND_EXITED,
  /**
   * Another broker already serves the name: this one refused to publish over it ({@link
   * dev.lifecycle.record.RecordStore#publishIfVacant}) and took down what it had started.
   */
  NAME_TAKEN
}
