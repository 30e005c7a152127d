package dev.lifecycle.broker;

import java.io.IOException;
import java.util.OptionalLong;

/**
 * A broker could not be reached or started; names the broker's pid when one is known. Like any
 * exception, safe to read from any thread once thrown.
 */
public final class BrokerException extends IOException {
  private static final long serialVersionUID = 1L;

  /** The broker's pid, or {@code 0} when the failure concerns no particular broker. */
  private final long pid;

  BrokerException(String message, long pid) {
    super(message);
    this.pid = pid;
  }

  BrokerException(String message, long pid, Throwable cause) {
    super(message, cause);
    this.pid = pid;
  }

  /**
   * The pid of the broker concerned, if the failure is about one.
   *
   * @return the pid, or empty when no broker was involved
   */
  public OptionalLong pid() {
    return pid > 0 ? OptionalLong.of(pid) : OptionalLong.empty();
  }
}
