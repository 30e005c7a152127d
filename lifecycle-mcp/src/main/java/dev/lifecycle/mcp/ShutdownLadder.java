package dev.lifecycle.mcp;

import dev.lifecycle.internal.Setting;
import dev.lifecycle.time.Limit;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
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
 * <p>Configuration: each step a transport runs with is, in this order of precedence (that of every
 * lifecycle setting), the value set on its builder, else the system property ({@value
 * #STDIN_WAIT_PROPERTY}, {@value #TERM_GRACE_PROPERTY}, {@value #KILL_VERIFY_PROPERTY}), else the
 * environment variable ({@value #STDIN_WAIT_ENV}, {@value #TERM_GRACE_ENV}, {@value
 * #KILL_VERIFY_ENV}), else the default ({@link Limit#parse} grammar; an unusable value is logged
 * and the next source down is used).
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

  private static final Setting<Limit> STDIN_WAIT =
      Setting.limit(STDIN_WAIT_PROPERTY, STDIN_WAIT_ENV, Limit.of(DEFAULT_STDIN_WAIT));

  private static final Setting<Limit> TERM_GRACE =
      Setting.limit(TERM_GRACE_PROPERTY, TERM_GRACE_ENV, Limit.of(DEFAULT_TERM_GRACE));

  private static final Setting<Limit> KILL_VERIFY =
      Setting.limit(KILL_VERIFY_PROPERTY, KILL_VERIFY_ENV, Limit.of(DEFAULT_KILL_VERIFY));

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
   * @return the default ladder, without configuration ({@link #configured()})
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
   * The ladder configuration gives: each step from its system property, else its environment
   * variable, else its default.
   *
   * @return the configured ladder, read now
   */
  public static ShutdownLadder configured() {
    return resolve(
        Optional.empty(), Optional.empty(), Optional.empty(), System::getProperty, System::getenv);
  }

  /** Each step set in code, else configured, else its default. */
  static ShutdownLadder resolve(
      Optional<Limit> stdinWait,
      Optional<Limit> termGrace,
      Optional<Limit> killVerify,
      Function<String, String> properties,
      Function<String, String> environment) {
    return new ShutdownLadder(
        STDIN_WAIT.resolve(stdinWait, properties, environment),
        TERM_GRACE.resolve(termGrace, properties, environment),
        KILL_VERIFY.resolve(killVerify, properties, environment));
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
