package dev.lifecycle.broker;

import java.util.Objects;
import java.util.function.BooleanSupplier;

/** One request line received by a {@link BrokerRuntime}, with what a handler may need. */
public final class BrokerRequest {
  private final String line;
  private final BrokerRuntime runtime;
  private final BooleanSupplier connected;

  BrokerRequest(String line, BrokerRuntime runtime, BooleanSupplier connected) {
    this.line = Objects.requireNonNull(line, "line");
    this.runtime = runtime;
    this.connected = connected;
  }

  /** The request text, without its line break. */
  public String line() {
    return line;
  }

  /** The broker serving it (e.g. to call {@link BrokerRuntime#shutdown()}). */
  public BrokerRuntime runtime() {
    return runtime;
  }

  /** Whether the client is still connected (a handler may abandon work for a departed client). */
  public boolean isConnected() {
    return connected.getAsBoolean();
  }

  @Override
  public String toString() {
    return "BrokerRequest[" + line + "]";
  }
}
