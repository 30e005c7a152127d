package dev.lifecycle.broker;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.tree.ProcessTree;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backend trees of one broker and what their leaders' exits set off. An exit counts in every
 * phase before the shutdown pass (starting, publishing, serving); once the pass began ({@link
 * #close}) the pass ends every tree, exited or not, and a tree offered from then on is refused.
 * Thread-safe.
 */
final class Backends {
  private static final Logger LOG = LoggerFactory.getLogger(Backends.class);

  /**
   * The default policy. Known by identity: with it an exit stops every answer at once, before the
   * thread that runs the pass has started.
   */
  static final BackendExit SHUT_DOWN =
      (runtime, backend) -> runtime.shutdown(ShutdownReason.BACKEND_EXITED);

  private final BrokerRuntime runtime;
  private final BackendExit policy;
  private final List<ProcessTree> trees = new ArrayList<>(); // guarded by this
  private boolean closed; // guarded by this
  private volatile boolean lost;

  Backends(BrokerRuntime runtime, BackendExit policy) {
    this.runtime = runtime;
    this.policy = policy;
  }

  /**
   * Takes {@code tree} in and watches its leader.
   *
   * @return false once the pass began: the caller terminates the tree
   */
  boolean add(ProcessTree tree) {
    synchronized (this) {
      if (closed) {
        return false;
      }
      trees.add(tree);
    }
    tree.leader().onExit().thenRun(() -> exited(tree));
    return true;
  }

  /** The pass began: it ends every tree taken in so far. */
  synchronized void close() {
    closed = true;
  }

  /** Every tree taken in; complete once {@link #close} returned. */
  synchronized List<ProcessTree> trees() {
    return List.copyOf(trees);
  }

  /** A backend exited and the broker shuts down for it: nothing may be answered any more. */
  boolean lost() {
    return lost;
  }

  private void exited(ProcessTree tree) {
    synchronized (this) {
      if (closed) {
        return; // the pass ends what is left of the tree
      }
    }
    if (policy == SHUT_DOWN) {
      lost = true;
    }
    // Not a daemon: a pass it starts must not be cut short.
    Threads.startKeepingJvm(
        "lifecycle-broker-backend-exit",
        () -> {
          LOG.warn("broker {}: backend {} exited", runtime.name(), tree);
          try {
            policy.exited(runtime, tree);
          } catch (Exception | LinkageError e) {
            LOG.warn("broker {}: backend exit policy failed; shutting down", runtime.name(), e);
            lost = true;
            runtime.shutdown(ShutdownReason.BACKEND_EXITED);
          }
        });
  }
}
