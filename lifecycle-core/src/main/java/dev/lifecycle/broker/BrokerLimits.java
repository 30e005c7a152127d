package dev.lifecycle.broker;

import dev.lifecycle.internal.Setting;
import dev.lifecycle.time.Limit;
import java.util.Optional;

/**
 * The broker's timeouts: named defaults (each with its reason) and the system property and
 * environment variable that override each default. The backends' grace is not a timeout but a
 * {@link java.time.Duration}: {@link BrokerRuntime#DEFAULT_BACKEND_GRACE}. Precedence, as for every
 * lifecycle setting: a value set in code through a builder, else the system property, else the
 * environment variable, else the default. Text uses the {@link Limit#parse} grammar: bare numbers
 * are milliseconds; {@code 0} disables; {@code 10s}, {@code 5m}, {@code PT1H} are accepted; an
 * unusable value is logged at WARN and the next source down is used. Thread-safe (constants).
 */
public enum BrokerLimits {
  /**
   * Broker: from start to serving. 60 s: a backend that spawns language servers or MCP servers can
   * take tens of seconds; one that has not listened after a minute is wedged, and until it listens
   * nothing else (no idle timer, no client) will ever end it.
   */
  STARTUP(
      "lifecycle.broker.startupTimeout", "LIFECYCLE_BROKER_STARTUP_TIMEOUT", Limit.ofSeconds(60)),

  /**
   * Broker: no lease open for this long ends the broker. 10 min: long enough that a session's
   * clients reuse one warm broker, short enough that a forgotten one does not hold its backend (and
   * its memory) for the rest of the day.
   */
  IDLE("lifecycle.broker.idleTimeout", "LIFECYCLE_BROKER_IDLE_TIMEOUT", Limit.ofMinutes(10)),

  /**
   * Client: from spawning a broker to its record naming a reachable endpoint. 15 s: a cold JVM
   * broker with a backend takes a few seconds on a loaded 2-core machine (and Windows-like slow
   * starts needed 15 s upstream); past it the spawned broker's tree is terminated.
   */
  READY("lifecycle.broker.readyTimeout", "LIFECYCLE_BROKER_READY_TIMEOUT", Limit.ofSeconds(15)),

  /**
   * Client: waiting for the cross-process start lock. 30 s: the holder waits at most {@link #READY}
   * plus a record read; twice that means the holder is stopped, not slow.
   */
  START_LOCK(
      "lifecycle.broker.startLockTimeout",
      "LIFECYCLE_BROKER_START_LOCK_TIMEOUT",
      Limit.ofSeconds(30)),

  /**
   * Client: how long a record whose owner is alive but whose endpoint does not answer is given to
   * answer (or to be cleared by its shutting-down owner). 5 s: a shutdown pass clears its record
   * right after closing its listener, and a busy broker accepts within milliseconds.
   */
  UNRESPONSIVE_WAIT(
      "lifecycle.broker.unresponsiveWait",
      "LIFECYCLE_BROKER_UNRESPONSIVE_WAIT",
      Limit.ofSeconds(5)),

  /**
   * {@link Connect}: how long connecting to a freshly spawned backend may take. 30 s: initialize
   * handshakes of language servers are slow but not minutes.
   */
  CONNECT("lifecycle.connect.timeout", "LIFECYCLE_CONNECT_TIMEOUT", Limit.ofSeconds(30)),

  /**
   * {@link Connect}: how long reclaiming a backend after a failed connect may take before the
   * original error is thrown anyway. 5 s: TERM, half of it as grace, KILL, verify.
   */
  CONNECT_CLEANUP(
      "lifecycle.connect.cleanupTimeout", "LIFECYCLE_CONNECT_CLEANUP_TIMEOUT", Limit.ofSeconds(5));

  private final Setting<Limit> setting;

  BrokerLimits(String systemProperty, String environmentVariable, Limit defaultLimit) {
    this.setting = Setting.of(systemProperty, environmentVariable, defaultLimit, Limit::parse);
  }

  /**
   * The system property that overrides this limit's default, e.g. {@code
   * lifecycle.broker.idleTimeout}.
   *
   * @return the property's name
   */
  public String systemProperty() {
    return setting.property();
  }

  /**
   * The environment variable that overrides this limit's default when the system property is unset.
   *
   * @return the variable's name
   */
  public String environmentVariable() {
    return setting.variable();
  }

  /**
   * The limit used when neither the property nor the variable gives a usable value.
   *
   * @return the default
   */
  public Limit defaultLimit() {
    return setting.defaultValue();
  }

  /**
   * The configured limit: system property, else environment variable, else the default.
   *
   * @return the configured limit, read afresh at each call
   */
  public Limit resolve() {
    return setting.resolve();
  }

  /** {@code programmatic} when set in code (a builder's field, null while unset), else resolved. */
  Limit or(Limit programmatic) {
    return setting.resolve(Optional.ofNullable(programmatic));
  }
}
