package dev.lifecycle.mcp;

import dev.lifecycle.time.Limit;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * Per-server limits after which the transport shuts its server down with the {@link ShutdownLadder}
 * and fails what is pending. An immutable value; thread-safe.
 *
 * <p>Every limit is a {@link Limit}: {@code 0} disables it, huge values clamp. The system
 * properties {@value #STARTUP_PROPERTY}, {@value #IDLE_PROPERTY} and {@value #WALL_CLOCK_PROPERTY},
 * or the environment variables {@value #STARTUP_ENV}, {@value #IDLE_ENV} and {@value
 * #WALL_CLOCK_ENV}, override the values a transport is built with ({@link Limit#parse} grammar; an
 * unusable value is logged and ignored).
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
   * @return the default limits, without configuration overrides ({@link #withConfiguration()})
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
   * These limits with the configured overrides (system properties, then environment) applied.
   *
   * @return new limits whose values are the configured ones where one is set and usable, these
   *     otherwise
   */
  public ServerLimits withConfiguration() {
    return withConfiguration(System::getProperty, System::getenv);
  }

  ServerLimits withConfiguration(
      Function<String, String> properties, Function<String, String> environment) {
    return new ServerLimits(
        Limit.fromConfig(STARTUP_PROPERTY, STARTUP_ENV, startup, properties, environment),
        Limit.fromConfig(IDLE_PROPERTY, IDLE_ENV, idle, properties, environment),
        Limit.fromConfig(WALL_CLOCK_PROPERTY, WALL_CLOCK_ENV, wallClock, properties, environment));
  }
}
