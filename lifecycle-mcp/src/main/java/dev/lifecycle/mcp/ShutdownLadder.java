package dev.lifecycle.mcp;

import dev.lifecycle.time.Limit;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * The MCP stdio shutdown ladder, applied to the server's whole process tree: close the server's
 * stdin, wait up to {@link #stdinWait} for the tree to exit, SIGTERM (and SIGCONT) to the tree, up
 * to {@link #termGrace}, SIGKILL to what is left, then up to {@link #killVerify} for the kernel to
 * prove it gone. An immutable value; thread-safe.
 *
 * <p>Every step is a {@link Limit}: a disabled ({@code 0}) step does not wait (a disabled {@code
 * stdinWait} sends SIGTERM right after closing stdin, a disabled {@code termGrace} sends SIGKILL
 * right after SIGTERM, a disabled {@code killVerify} reports what is still alive at once). Huge
 * values clamp as every {@code Limit} does. The worst case of a close is the sum of the three plus
 * a few scans; the defaults (2 s + 2 s + 3 s) stay below the 10 s the SDK's {@code
 * McpSyncClient.closeGracefully()} waits.
 *
 * <p>Configuration: the system properties {@value #STDIN_WAIT_PROPERTY}, {@value
 * #TERM_GRACE_PROPERTY} and {@value #KILL_VERIFY_PROPERTY}, or the environment variables {@value
 * #STDIN_WAIT_ENV}, {@value #TERM_GRACE_ENV} and {@value #KILL_VERIFY_ENV}, override the values a
 * transport is built with ({@link Limit#parse} grammar; an unusable value is logged and ignored).
 *
 * @param stdinWait how long the tree may take to exit after its stdin reached end-of-file
 * @param termGrace how long the tree may take to exit after SIGTERM
 * @param killVerify how long to wait after SIGKILL before the rest is reported as survivors
 */
public record ShutdownLadder(Limit stdinWait, Limit termGrace, Limit killVerify) {

  /** The TypeScript SDK's wait after closing stdin and after SIGTERM: 2 s each. */
  public static final Duration DEFAULT_STDIN_WAIT = Duration.ofSeconds(2);

  /** The default {@code termGrace}: 2 s between SIGTERM and SIGKILL. */
  public static final Duration DEFAULT_TERM_GRACE = Duration.ofSeconds(2);

  /** SIGKILLed processes are gone within milliseconds unless in uninterruptible sleep. */
  public static final Duration DEFAULT_KILL_VERIFY = Duration.ofSeconds(3);

  /** System property that overrides {@code stdinWait}. */
  public static final String STDIN_WAIT_PROPERTY = "lifecycle.mcp.stdinWait";

  /** Environment variable that overrides {@code stdinWait} when the property is unset. */
  public static final String STDIN_WAIT_ENV = "LIFECYCLE_MCP_STDIN_WAIT";

  /** System property that overrides {@code termGrace}. */
  public static final String TERM_GRACE_PROPERTY = "lifecycle.mcp.termGrace";

  /** Environment variable that overrides {@code termGrace} when the property is unset. */
  public static final String TERM_GRACE_ENV = "LIFECYCLE_MCP_TERM_GRACE";

  /** System property that overrides {@code killVerify}. */
  public static final String KILL_VERIFY_PROPERTY = "lifecycle.mcp.killVerify";

  /** Environment variable that overrides {@code killVerify} when the property is unset. */
  public static final String KILL_VERIFY_ENV = "LIFECYCLE_MCP_KILL_VERIFY";

  /**
   * Checks that every step is given; use {@link Limit#disabled()} for a step that must not wait.
   *
   * @param stdinWait how long the tree may take to exit after its stdin reached end-of-file
   * @param termGrace how long the tree may take to exit after SIGTERM
   * @param killVerify how long to wait after SIGKILL before the rest is reported as survivors
   * @throws NullPointerException if a component is {@code null}
   */
  public ShutdownLadder {
    Objects.requireNonNull(stdinWait, "stdinWait");
    Objects.requireNonNull(termGrace, "termGrace");
    Objects.requireNonNull(killVerify, "killVerify");
  }

  /**
   * The defaults: 2 s stdin wait, 2 s SIGTERM grace, 3 s kill verification.
   *
   * @return the default ladder, without configuration overrides ({@link #withConfiguration()})
   */
  public static ShutdownLadder defaults() {
    return new ShutdownLadder(
        Limit.of(DEFAULT_STDIN_WAIT), Limit.of(DEFAULT_TERM_GRACE), Limit.of(DEFAULT_KILL_VERIFY));
  }

  /**
   * A copy of this ladder with another wait after closing stdin.
   *
   * @param value how long the tree may take to exit after stdin end-of-file; disabled sends SIGTERM
   *     at once
   * @return a new ladder; this one is unchanged
   */
  public ShutdownLadder withStdinWait(Limit value) {
    return new ShutdownLadder(value, termGrace, killVerify);
  }

  /**
   * A copy of this ladder with another grace between SIGTERM and SIGKILL.
   *
   * @param value how long the tree may take to exit after SIGTERM; disabled sends SIGKILL at once
   * @return a new ladder; this one is unchanged
   */
  public ShutdownLadder withTermGrace(Limit value) {
    return new ShutdownLadder(stdinWait, value, killVerify);
  }

  /**
   * A copy of this ladder with another wait after SIGKILL.
   *
   * @param value how long to wait for SIGKILLed processes to disappear; disabled reports what is
   *     still alive at once
   * @return a new ladder; this one is unchanged
   */
  public ShutdownLadder withKillVerify(Limit value) {
    return new ShutdownLadder(stdinWait, termGrace, value);
  }

  /**
   * This ladder with the configured overrides (system properties, then environment) applied.
   *
   * @return a new ladder whose steps are the configured values where one is set and usable, this
   *     ladder's otherwise
   */
  public ShutdownLadder withConfiguration() {
    return withConfiguration(System::getProperty, System::getenv);
  }

  ShutdownLadder withConfiguration(
      Function<String, String> properties, Function<String, String> environment) {
    return new ShutdownLadder(
        Limit.fromConfig(STDIN_WAIT_PROPERTY, STDIN_WAIT_ENV, stdinWait, properties, environment),
        Limit.fromConfig(TERM_GRACE_PROPERTY, TERM_GRACE_ENV, termGrace, properties, environment),
        Limit.fromConfig(
            KILL_VERIFY_PROPERTY, KILL_VERIFY_ENV, killVerify, properties, environment));
  }

  /**
   * The longest a close can wait on the ladder's own steps.
   *
   * @return the sum of the three steps, a disabled step counting as zero (scans not included)
   */
  public Duration worstCase() {
    return wait(stdinWait).plus(wait(termGrace)).plus(wait(killVerify));
  }

  static Duration wait(Limit limit) {
    return limit.asOptional().orElse(Duration.ZERO);
  }
}
