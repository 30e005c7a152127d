package dev.lifecycle.mcp;

import dev.lifecycle.internal.Durations;
import dev.lifecycle.internal.Setting;
import dev.lifecycle.tree.TreeOptions;
import java.time.Duration;
import java.util.function.Function;

/**
 * The MCP stdio shutdown ladder, applied to the server's whole process tree: close the server's
 * stdin, wait up to {@link #stdinWait} for the tree to exit, SIGTERM (and SIGCONT) to the tree, up
 * to {@link #termGrace}, SIGKILL to what is left, then up to {@link #killVerify} for the kernel to
 * prove it gone. An immutable value; thread-safe.
 *
 * <p>Every step is a {@link Duration}, and a zero step does not wait (a zero {@code stdinWait}
 * sends SIGTERM right after closing stdin, a zero {@code termGrace} sends SIGKILL right after
 * SIGTERM, a zero {@code killVerify} reports what is still alive at once). Steps over 100 years
 * ({@link dev.lifecycle.time.Limit#MAX}) clamp to it. The worst case of a close is the sum of the
 * three plus a few scans; the defaults (2 s + 2 s + 3 s) stay below the 10 s the SDK's {@code
 * McpSyncClient.closeGracefully()} waits.
 *
 * <p>Configuration: each step a transport runs with is, in this order of precedence (that of every
 * lifecycle setting), the value set on its builder, else the system property ({@value
 * #STDIN_WAIT_PROPERTY}, {@value #TERM_GRACE_PROPERTY}, {@value #KILL_VERIFY_PROPERTY}), else the
 * environment variable ({@value #STDIN_WAIT_ENV}, {@value #TERM_GRACE_ENV}, {@value
 * #KILL_VERIFY_ENV}), else the default ({@link dev.lifecycle.time.Limit#parse} grammar, {@code 0}
 * means no wait; an unusable value is logged, naming the setting and the value, and the next source
 * down is used).
 *
 * @param stdinWait how long the tree may take to exit after its stdin reached end-of-file
 * @param termGrace how long the tree may take to exit after SIGTERM
 * @param killVerify how long to wait after SIGKILL before the rest is reported as survivors
 */
public record ShutdownLadder(Duration stdinWait, Duration termGrace, Duration killVerify) {

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

  static final Setting<Duration> STDIN_WAIT =
      Setting.duration(STDIN_WAIT_PROPERTY, STDIN_WAIT_ENV, DEFAULT_STDIN_WAIT);

  static final Setting<Duration> TERM_GRACE =
      Setting.duration(TERM_GRACE_PROPERTY, TERM_GRACE_ENV, DEFAULT_TERM_GRACE);

  static final Setting<Duration> KILL_VERIFY =
      Setting.duration(KILL_VERIFY_PROPERTY, KILL_VERIFY_ENV, DEFAULT_KILL_VERIFY);

  /**
   * Checks every step; use {@link Duration#ZERO} for a step that must not wait.
   *
   * @param stdinWait how long the tree may take to exit after its stdin reached end-of-file
   * @param termGrace how long the tree may take to exit after SIGTERM
   * @param killVerify how long to wait after SIGKILL before the rest is reported as survivors
   * @throws NullPointerException if a component is {@code null}
   * @throws IllegalArgumentException if a component is negative
   */
  public ShutdownLadder {
    stdinWait = Durations.nonNegative(stdinWait, "stdinWait");
    termGrace = Durations.nonNegative(termGrace, "termGrace");
    killVerify = Durations.nonNegative(killVerify, "killVerify");
  }

  /**
   * The defaults: 2 s stdin wait, 2 s SIGTERM grace, 3 s kill verification.
   *
   * @return the default ladder, without configuration ({@link #configured()})
   */
  public static ShutdownLadder defaults() {
    return new ShutdownLadder(DEFAULT_STDIN_WAIT, DEFAULT_TERM_GRACE, DEFAULT_KILL_VERIFY);
  }

  /**
   * A copy of this ladder with another wait after closing stdin.
   *
   * @param value how long the tree may take to exit after stdin end-of-file; zero sends SIGTERM at
   *     once
   * @return a new ladder; this one is unchanged
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public ShutdownLadder withStdinWait(Duration value) {
    return new ShutdownLadder(value, termGrace, killVerify);
  }

  /**
   * A copy of this ladder with another grace between SIGTERM and SIGKILL.
   *
   * @param value how long the tree may take to exit after SIGTERM; zero sends SIGKILL at once
   * @return a new ladder; this one is unchanged
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public ShutdownLadder withTermGrace(Duration value) {
    return new ShutdownLadder(stdinWait, value, killVerify);
  }

  /**
   * A copy of this ladder with another wait after SIGKILL.
   *
   * @param value how long to wait for SIGKILLed processes to disappear; zero reports what is still
   *     alive at once
   * @return a new ladder; this one is unchanged
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public ShutdownLadder withKillVerify(Duration value) {
    return new ShutdownLadder(stdinWait, termGrace, value);
  }

  /**
   * The ladder configuration gives: each step from its system property, else its environment
   * variable, else its default.
   *
   * @return the configured ladder, read now
   */
  public static ShutdownLadder configured() {
    return resolve(new Overrides(), System::getProperty, System::getenv);
  }

  /** Each step set in code, else configured, else its default. */
  static ShutdownLadder resolve(
      Overrides inCode, Function<String, String> properties, Function<String, String> environment) {
    return new ShutdownLadder(
        inCode.resolve(STDIN_WAIT, properties, environment),
        inCode.resolve(TERM_GRACE, properties, environment),
        inCode.resolve(KILL_VERIFY, properties, environment));
  }

  /** Sets every step of this ladder on {@code inCode}: configuration no longer changes them. */
  void setOn(Overrides inCode) {
    inCode.set(STDIN_WAIT, stdinWait);
    inCode.set(TERM_GRACE, termGrace);
    inCode.set(KILL_VERIFY, killVerify);
  }

  /**
   * The longest a close can wait on the ladder's own steps.
   *
   * @return the sum of the three steps (scans not included)
   */
  public Duration worstCase() {
    return stdinWait.plus(termGrace).plus(killVerify);
  }

  /** The tree's options for this ladder: its grace and verify bounds are the ladder's steps. */
  TreeOptions treeOptions() {
    Duration escapeeGrace =
        termGrace.compareTo(TreeOptions.DEFAULT_ESCAPEE_GRACE) < 0
            ? termGrace
            : TreeOptions.DEFAULT_ESCAPEE_GRACE;
    return TreeOptions.defaults()
        .withGrace(termGrace)
        .withEscapeeGrace(escapeeGrace)
        .withVerifyTimeout(killVerify);
  }
}
