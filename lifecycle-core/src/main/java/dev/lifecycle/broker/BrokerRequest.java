package dev.lifecycle.broker;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request line received by a {@link BrokerRuntime}, with what a handler may need. Thread-safe.
 */
public final class BrokerRequest {
  private static final Logger LOG = LoggerFactory.getLogger(BrokerRequest.class);

  private final String line;
  private final BrokerRuntime runtime;
  private final BooleanSupplier connected;
  private final List<Runnable> afterReply = new ArrayList<>(); // guarded by this

  BrokerRequest(String line, BrokerRuntime runtime, BooleanSupplier connected) {
    this.line = Objects.requireNonNull(line, "line");
    this.runtime = runtime;
    this.connected = connected;
  }

  /**
   * The request text, without its line break.
   *
   * @return the line as the client sent it
   */
  public String line() {
    return line;
  }

  /**
   * The broker serving it (e.g. to call {@link BrokerRuntime#shutdown()}).
   *
   * @return the runtime that received the request
   */
  public BrokerRuntime runtime() {
    return runtime;
  }

  /**
   * Whether the client is still connected (a handler may abandon work for a departed client).
   *
   * @return {@code false} once the client's connection is closed
   */
  public boolean isConnected() {
    return connected.getAsBoolean();
  }

  /**
   * Runs {@code action} once this request is finished: after its reply line was written (or found
   * undeliverable), or after the handler returned no reply or failed. The canonical use is a {@code
   * shutdown} request that must be acknowledged before the shutdown pass closes the connection:
   * {@code request.afterReply(runtime::shutdown)}. Actions run in order on the thread that finished
   * the request, before its idle lease is released; one that throws is logged and does not stop the
   * others.
   *
   * @param action what to run once the request is finished
   */
  public void afterReply(Runnable action) {
    Objects.requireNonNull(action, "action");
    synchronized (this) {
      afterReply.add(action);
    }
  }

  void runAfterReply() {
    List<Runnable> actions;
    synchronized (this) {
      actions = List.copyOf(afterReply);
      afterReply.clear();
    }
    for (Runnable action : actions) {
      try {
        action.run();
      } catch (RuntimeException | LinkageError e) {
        LOG.warn("after-reply action of {} failed", this, e);
      }
    }
  }

  @Override
  public String toString() {
    return "BrokerRequest[" + line + "]";
  }
}
