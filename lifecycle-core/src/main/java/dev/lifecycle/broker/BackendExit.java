package dev.lifecycle.broker;

import dev.lifecycle.tree.ProcessTree;

/**
 * What a broker does when the leader of one of its backend trees exits while the broker starts or
 * serves: a broker whose backend is gone must not answer every request with an error until it idles
 * out (each failed request would re-arm its idle timer). The default, {@link #shutDown()}, runs the
 * shutdown pass, so the next client starts a fresh broker; a policy may instead restart the backend
 * (spawn and {@link BrokerRuntime#adopt adopt} a new tree). A policy that throws shuts the broker
 * down. Called on a thread of its own, once per exited tree; implementations must be thread-safe
 * when several backends may exit. While another policy than the default runs, requests still reach
 * the handler.
 */
@FunctionalInterface
public interface BackendExit {
  /**
   * Reacts to {@code backend}'s leader having exited.
   *
   * @param runtime the serving broker
   * @param backend the tree whose leader exited; other members may still run
   * @throws Exception to give up: the broker then shuts down
   */
  void exited(BrokerRuntime runtime, ProcessTree backend) throws Exception;

  /**
   * Runs the shutdown pass with {@link ShutdownReason#BACKEND_EXITED}; the broker answers nothing
   * from the moment it sees the exit, and the pass ends what is left of every backend tree.
   *
   * @return the default policy
   */
  static BackendExit shutDown() {
    return Backends.SHUT_DOWN;
  }
}
