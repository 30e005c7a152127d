package dev.lifecycle.mcp;

import dev.lifecycle.internal.Setting;
import dev.lifecycle.time.Limit;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * Per-server limits after which the transport shuts its server down with the {@link ShutdownLadder}
 * and fails what is pending. An immutable value; thread-safe.
 *
 * <p>Every limit is a {@link Limit}: {@code 0} disables it, huge values clamp. Each limit a
 * transport runs with is, in this order of precedence (that of every lifecycle setting): the value
 * set on its builder, else the system property ({@value #STARTUP_PROPERTY}, {@value
 * #IDLE_PROPERTY}, {@value #WALL_CLOCK_PROPERTY}), else the environment variable ({@value
 * #STARTUP_ENV}, {@value #IDLE_ENV}, {@value #WALL_CLOCK_ENV}), else the default ({@link
 * Limit#parse} grammar; an unusable value is logged and the next source down is used).
 *
 * @param startup from spawn until the server has answered {@code initialize} successfully (default
 *     {@link #DEFAULT_STARTUP}); covers an {@code npx} that hangs downloading and a server stuck
 *     before it reads its stdin
 * @param idle how long no request may be in flight, in either direction, before the server is shut
 *     down (default disabled); counted from the successful {@code initialize}
 * @param wallClock the server's whole lifetime from spawn (default disabled)
 */
public record ServerLimits(Limit startup, Limit idle, Limit wallClock) {

  /** The broker's startup bound (lifecycle.broker.startupTimeout): 60 s covers a cold npx. */
  public static final Duration DEFAULT_STARTUP = Duration.ofSeconds(60);

  /** System property that overrides {@code startup}. */
  public static final String STARTUP_PROPERTY = "lifecycle.mcp.startupTimeout";

  /** Environment variable that overrides {@code startup} when the property is unset. */
  public static final String STARTUP_ENV = "LIFECYCLE_MCP_STARTUP_TIMEOUT";

  /** System property that overrides {@code idle}. */
  public static final String IDLE_PROPERTY = "lifecycle.mcp.idleTimeout";

  /** Environment variable that overrides {@code idle} when the property is unset. */
  public static final String IDLE_ENV = "LIFECYCLE_MCP_IDLE_TIMEOUT";

  /** System property that overrides {@code wallClock}. */
  public static final String WALL_CLOCK_PROPERTY = "lifecycle.mcp.wallClock";

  /** Environment variable that overrides {@code wallClock} when the property is unset. */
  public static final String WALL_CLOCK_ENV = "LIFECYCLE_MCP_WALL_CLOCK";

  static final Setting<Limit> STARTUP =
      Setting.of(STARTUP_PROPERTY, STARTUP_ENV, Limit.of(DEFAULT_STARTUP), Limit::parse);

  static final Setting<Limit> IDLE =
      Setting.of(IDLE_PROPERTY, IDLE_ENV, Limit.disabled(), Limit::parse);

  static final Setting<Limit> WALL_CLOCK =
      Setting.of(WALL_CLOCK_PROPERTY, WALL_CLOCK_ENV, Limit.disabled(), Limit::parse);

  /**
   * Checks that every limit is given; use {@link Limit#disabled()} for no limit.
   *
   * @param startup from spawn until the server has answered {@code initialize} successfully
   *     (default {@link #DEFAULT_STARTUP}); covers an {@code npx} that hangs downloading and a
   *     server stuck before it reads its stdin
   * @param idle how long no request may be in flight, in either direction, before the server is
   *     shut down (default disabled); counted from the successful {@code initialize}
   * @param wallClock the server's whole lifetime from spawn (default disabled)
   * @throws NullPointerException if a component is {@code null}
   */
  public ServerLimits {
    Objects.requireNonNull(startup, "startup");
    Objects.requireNonNull(idle, "idle");
    Objects.requireNonNull(wallClock, "wallClock");
  }

  /**
   * The defaults: a 60 s startup limit, no idle limit, no wall-clock limit.
   *
   * @return the default limits, without configuration ({@link #configured()})
   */
  public static ServerLimits defaults() {
    return new ServerLimits(Limit.of(DEFAULT_STARTUP), Limit.disabled(), Limit.disabled());
  }

  /**
   * A copy of these limits with another startup limit.
   *
   * @param value from spawn until a successful {@code initialize}; disabled waits forever
   * @return new limits; these are unchanged
   */
  public ServerLimits withStartup(Limit value) {
    return new ServerLimits(value, idle, wallClock);
  }

  /**
   * A copy of these limits with another idle limit.
   *
   * @param value how long no request may be in flight; disabled never shuts an idle server down
   * @return new limits; these are unchanged
   */
  public ServerLimits withIdle(Limit value) {
    return new ServerLimits(startup, value, wallClock);
  }

  /**
   * A copy of these limits with another wall-clock limit.
   *
   * @param value the server's whole lifetime from spawn; disabled lets it live until closed
   * @return new limits; these are unchanged
   */
  public ServerLimits withWallClock(Limit value) {
    return new ServerLimits(startup, idle, value);
  }

  /**
   * The limits configuration gives: each from its system property, else its environment variable,
   * else its default.
   *
   * @return the configured limits, read now
   */
  public static ServerLimits configured() {
    return resolve(new Overrides(), System::getProperty, System::getenv);
  }

  /** Each limit set in code, else configured, else its default. */
  static ServerLimits resolve(
      Overrides inCode, Function<String, String> properties, Function<String, String> environment) {
    return new ServerLimits(
        inCode.resolve(STARTUP, properties, environment),
        inCode.resolve(IDLE, properties, environment),
        inCode.resolve(WALL_CLOCK, properties, environment));
  }

  /** Sets every limit of these on {@code inCode}: configuration no longer changes them. */
  void setOn(Overrides inCode) {
    inCode.set(STARTUP, startup);
    inCode.set(IDLE, idle);
    inCode.set(WALL_CLOCK, wallClock);
  }
}
