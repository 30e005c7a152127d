package dev.lifecycle.broker;

import java.util.concurrent.CompletionStage;

/**
 * Serves one request line of a {@link BrokerRuntime}. Called on the connection's reader thread: a
 * handler that does slow work should return an incomplete stage and finish elsewhere, so the reader
 * notices a client that disconnects meanwhile. The request holds an idle lease until the stage
 * completes, whether or not its client is still connected. Called from many connections' reader
 * threads at once, so implementations must be thread-safe.
 */
@FunctionalInterface
public interface RequestHandler {
  /**
   * Returns the response line (without a line break), or null to send nothing. An exception, thrown
   * or as the stage's failure, is logged and sends nothing; the broker keeps serving.
   *
   * @param request the request line and its context
   * @return a stage completed with the response line, or with {@code null} for no response
   * @throws Exception to fail the request; it is logged and nothing is sent
   */
  CompletionStage<String> handle(BrokerRequest request) throws Exception;
}
