package dev.lifecycle.guard;

import java.util.Objects;

/**
 * What happens to a tree once a breach of its {@link Ceilings} is logged. Called on the watchdog's
 * one sampler thread, so it must be quick and must be thread-safe; an exception it throws is logged
 * and the tree is ended as with {@link #terminate()}.
 *
 * <p>A handler that keeps the tree is asked about the same ceiling again at most once a minute (or
 * once a window, if the window is longer), never at every sample; the other ceilings are judged as
 * before.
 */
@FunctionalInterface
public interface BreachHandler {
  /** What to do with the tree. */
  enum Verdict {
    /** End the tree through its staged termination; the report names the breach. */
    TERMINATE,
    /** Leave the tree running (the breach was logged). */
    KEEP
  }

  /**
   * Decides about one breach.
   *
   * @param breach what was measured against which ceiling
   * @return whether the tree is ended
   */
  Verdict onBreach(Breach breach);

  /**
   * The default: every breach ends the tree.
   *
   * @return a handler that always answers {@link Verdict#TERMINATE}
   */
  static BreachHandler terminate() {
    return Handlers.TERMINATE;
  }

  /**
   * Logs only: the WARN line names the breach and the tree keeps running.
   *
   * @return a handler that always answers {@link Verdict#KEEP}
   */
  static BreachHandler warnOnly() {
    return Handlers.WARN_ONLY;
  }

  /**
   * Calls {@code observer} with each breach, then ends the tree.
   *
   * @param observer told about each breach before the tree is ended; what it throws is logged
   * @return a handler that notifies, then answers {@link Verdict#TERMINATE}
   */
  static BreachHandler notifyThenTerminate(java.util.function.Consumer<Breach> observer) {
    Objects.requireNonNull(observer, "observer");
    return breach -> {
      observer.accept(breach);
      return Verdict.TERMINATE;
    };
  }
}

/** The constant handlers, with names for logs. */
enum Handlers implements BreachHandler {
  TERMINATE(Verdict.TERMINATE),
  WARN_ONLY(Verdict.KEEP);

  private final Verdict verdict;

  Handlers(Verdict verdict) {
    this.verdict = verdict;
  }

  @Override
  public Verdict onBreach(Breach breach) {
    return verdict;
  }
}
