package dev.lifecycle.broker;

/**
 * Tests: hears a broker cross each boundary of its life, on the thread crossing it and outside the
 * broker's lock, and may block to hold the broker there.
 */
@FunctionalInterface
interface PhaseHook {
  /** Where the broker is held. */
  enum Phase {
    /** The startup returned (its backends run); nothing listens yet. */
    STARTING,
    /** Listening; the record is not published yet. */
    PUBLISHING,
    /** The record is published and the broker serves; {@code start()} has not returned yet. */
    SERVING,
    /** The pass began (the listener is closed); the backends are not terminated yet. */
    STOPPING
  }

  /** Does nothing. */
  PhaseHook NONE = phase -> {};

  void reached(Phase phase);
}
