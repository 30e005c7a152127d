package dev.lifecycle.guard;

import dev.lifecycle.internal.Durations;
import dev.lifecycle.internal.Setting;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The ceilings of one process tree: resident memory, live processes, CPU share over a window, and
 * the spin rule. Immutable and thread-safe.
 *
 * <p>Every ceiling follows the grammar of lifecycle's limits: {@code 0} disables it, negative or
 * non-finite values are refused, huge values are clamped to "effectively never" ({@link
 * #MAX_MEMORY_BYTES}, {@link #MAX_PROCESSES}, {@link #MAX_CPU_SHARE}, windows to 100 years) and
 * never overflow into "immediately".
 *
 * <p>The CPU ceiling and the spin rule differ in what they measure: the ceiling judges the
 * <em>average</em> share over its trailing window (the kernel throttles to it with {@code cpu.max}
 * where it can), the spin rule asks that <em>every</em> sample of the window is at or above its
 * share, so a burst shorter than the window, or one quiet second, is not a spin. Spin is always
 * judged by the watchdog: throttling a spinner does not stop it from wasting its quota forever.
 *
 * <pre>{@code
 * Ceilings ceilings = Ceilings.none()
 *     .withMemoryBytes(512L << 20)                 // 512 MiB resident, whole tree
 *     .withProcesses(64)                           // live processes, whole tree
 *     .withSpin(0.9, Duration.ofSeconds(60));      // >= 0.9 of a core for 60 s
 * }</pre>
 *
 * @param memoryBytes resident memory of the whole tree, in bytes; {@code 0} disables
 * @param processes live (non-zombie) processes of the whole tree; {@code 0} disables
 * @param cpu the CPU ceiling (average share of one core over the window)
 * @param spin the spin rule (share of one core sustained for the whole window)
 * @param handler what a breach does once logged; {@link BreachHandler#terminate()} by default
 */
public record Ceilings(
    long memoryBytes, long processes, CpuRule cpu, CpuRule spin, BreachHandler handler) {

  /** Memory ceilings above this (1 EiB) are clamped to it: more than any machine holds. */
  public static final long MAX_MEMORY_BYTES = 1L << 60;

  /** Process ceilings above this (the kernel's {@code PID_MAX_LIMIT}) are clamped to it. */
  public static final long MAX_PROCESSES = 4_194_304L;

  /** CPU shares above this many cores are clamped to it. */
  public static final double MAX_CPU_SHARE = 4096.0;

  /** No ceiling, no spin rule. */
  private static final Ceilings NONE =
      new Ceilings(0, 0, CpuRule.DISABLED, CpuRule.DISABLED, BreachHandler.terminate());

  /**
   * A CPU rule: a share of one core ({@code 1.0} is one core fully busy, {@code 2.0} two) and the
   * window it is judged over. Immutable and thread-safe.
   *
   * @param share the share of one core; {@code 0} disables the rule
   * @param window how long the share is judged over; positive when the rule is enabled
   */
  public record CpuRule(double share, Duration window) {
    /** The rule that never fires. */
    public static final CpuRule DISABLED = new CpuRule(0, Duration.ZERO);

    /**
     * Checks and clamps both parts.
     *
     * @param share the share of one core; {@code 0} disables the rule
     * @param window how long the share is judged over; positive when the rule is enabled
     * @throws IllegalArgumentException if {@code share} is negative, NaN or infinite, or the rule
     *     is enabled with a window that is not positive
     * @throws NullPointerException if {@code window} is {@code null}
     */
    public CpuRule {
      Objects.requireNonNull(window, "window");
      if (Double.isNaN(share) || Double.isInfinite(share) || share < 0) {
        throw new IllegalArgumentException(
            "CPU share must be a finite number >= 0 (0 disables the rule): " + share);
      }
      share = Math.min(share, MAX_CPU_SHARE);
      window = Durations.nonNegative(window, "CPU window");
      if (share > 0 && window.isZero()) {
        throw new IllegalArgumentException("an enabled CPU rule needs a positive window");
      }
      if (share == 0) {
        window = Duration.ZERO;
      }
    }

    /**
     * Whether this rule can fire.
     *
     * @return {@code true} if the share is positive
     */
    public boolean isEnabled() {
      return share > 0;
    }
  }

  /**
   * Checks and clamps every ceiling.
   *
   * @param memoryBytes resident memory of the whole tree, in bytes; {@code 0} disables
   * @param processes live (non-zombie) processes of the whole tree; {@code 0} disables
   * @param cpu the CPU ceiling (average share of one core over the window)
   * @param spin the spin rule (share of one core sustained for the whole window)
   * @param handler what a breach does once logged
   * @throws IllegalArgumentException if a count is negative
   * @throws NullPointerException if a component is {@code null}
   */
  public Ceilings {
    Objects.requireNonNull(cpu, "cpu");
    Objects.requireNonNull(spin, "spin");
    Objects.requireNonNull(handler, "handler");
    memoryBytes = clamp(memoryBytes, MAX_MEMORY_BYTES, "memory ceiling");
    processes = clamp(processes, MAX_PROCESSES, "process ceiling");
  }

  private static long clamp(long value, long max, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must be >= 0 (0 disables the ceiling): " + value);
    }
    return Math.min(value, max);
  }

  /**
   * No ceiling at all: the tree is never watched.
   *
   * @return the ceilings that never fire
   */
  public static Ceilings none() {
    return NONE;
  }

  /** The window a configured CPU rule gets when only its share is configured. */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);

  /**
   * Ceilings from configuration, each one on its own: the system property {@code <prefix>.memory},
   * else the variable {@code <PREFIX>_MEMORY}, else {@code defaults}' value; likewise {@code
   * .processes} / {@code _PROCESSES}, {@code .cpu} / {@code _CPU} with {@code .cpu.window} / {@code
   * _CPU_WINDOW}, and {@code .spin} / {@code _SPIN} with {@code .spin.window} / {@code
   * _SPIN_WINDOW}. Memory reads as bytes with an optional binary suffix ({@code 512m}, {@code 2g},
   * {@code k}, {@code t}), processes as a count, shares as decimals ({@code 0.9}), windows in the
   * {@code Limit} grammar ({@code 60s}, {@code 5m}); {@code 0} disables, huge values clamp, and
   * unusable text is logged at WARN and the next source down used. A window set to {@code 0} is
   * unusable (a rule cannot be judged over nothing); a share set without a window gets {@code
   * defaults}' window, else {@link #DEFAULT_WINDOW}. The handler is {@code defaults}'.
   *
   * @param propertyPrefix e.g. {@code lifecycle.broker.backend}
   * @param variablePrefix e.g. {@code LIFECYCLE_BROKER_BACKEND}
   * @param defaults the values where nothing is configured
   * @return the resolved ceilings
   */
  public static Ceilings fromConfig(
      String propertyPrefix, String variablePrefix, Ceilings defaults) {
    return configured(propertyPrefix, variablePrefix, defaults, Source.JVM);
  }

  /**
   * Ceilings from configuration as {@link #fromConfig(String, String, Ceilings)} reads it, with the
   * system properties and the environment looked up through the given functions (a test's map, a
   * configuration source of the program's own).
   *
   * @param propertyPrefix e.g. {@code lifecycle.broker.backend}
   * @param variablePrefix e.g. {@code LIFECYCLE_BROKER_BACKEND}
   * @param defaults the values where nothing is configured
   * @param properties looks up a system property by name ({@code null} when absent)
   * @param environment looks up an environment variable by name ({@code null} when absent)
   * @return the resolved ceilings
   * @throws NullPointerException if an argument is {@code null}
   */
  public static Ceilings fromConfig(
      String propertyPrefix,
      String variablePrefix,
      Ceilings defaults,
      Function<String, String> properties,
      Function<String, String> environment) {
    Source source =
        new Source(
            Objects.requireNonNull(properties, "properties"),
            Objects.requireNonNull(environment, "environment"));
    return configured(propertyPrefix, variablePrefix, defaults, source);
  }

  private static Ceilings configured(
      String propertyPrefix, String variablePrefix, Ceilings defaults, Source source) {
    Objects.requireNonNull(propertyPrefix, "propertyPrefix");
    Objects.requireNonNull(variablePrefix, "variablePrefix");
    Objects.requireNonNull(defaults, "defaults");
    long memory =
        source.resolve(
            Setting.of(
                propertyPrefix + ".memory",
                variablePrefix + "_MEMORY",
                defaults.memoryBytes,
                Ceilings::parseBytes));
    long count =
        source.resolve(
            Setting.of(
                propertyPrefix + ".processes",
                variablePrefix + "_PROCESSES",
                defaults.processes,
                Ceilings::parseCount));
    CpuRule cpu = source.rule(propertyPrefix + ".cpu", variablePrefix + "_CPU", defaults.cpu);
    CpuRule spin = source.rule(propertyPrefix + ".spin", variablePrefix + "_SPIN", defaults.spin);
    return new Ceilings(memory, count, cpu, spin, defaults.handler);
  }

  /** Where settings are read; {@link #JVM} reads this JVM's properties and environment. */
  private record Source(Function<String, String> properties, Function<String, String> environment) {
    /** Looks both up directly, not through method references (each a lambda class to link). */
    static final Source JVM = new Source(null, null);

    <T> T resolve(Setting<T> setting) {
      return properties == null
          ? setting.resolve()
          : setting.resolve(Optional.empty(), properties, environment);
    }

    CpuRule rule(String property, String variable, CpuRule fallback) {
      double share =
          resolve(Setting.of(property, variable, fallback.share(), Ceilings::parseShare));
      Duration window =
          resolve(
              Setting.of(
                  property + ".window",
                  variable + "_WINDOW",
                  fallback.isEnabled() ? fallback.window() : DEFAULT_WINDOW,
                  Ceilings::parseWindow));
      return new CpuRule(share, window);
    }
  }

  static long parseBytes(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    int shift = 0;
    if (!t.isEmpty()) {
      switch (t.charAt(t.length() - 1)) {
        case 'k' -> shift = 10;
        case 'm' -> shift = 20;
        case 'g' -> shift = 30;
        case 't' -> shift = 40;
        default -> shift = 0;
      }
    }
    String digits = shift == 0 ? t : t.substring(0, t.length() - 1);
    long value = parseCount(digits);
    return value > (MAX_MEMORY_BYTES >> shift) ? MAX_MEMORY_BYTES : value << shift;
  }

  static long parseCount(String text) {
    String t = text.trim();
    if (t.isEmpty() || !t.chars().allMatch(Character::isDigit)) {
      throw new IllegalArgumentException(
          "not a whole number >= 0 (0 disables the ceiling): \"" + text + "\"");
    }
    // More digits than a long holds is "huge": clamped, never overflowed.
    return t.length() > 18 ? Long.MAX_VALUE >> 1 : Math.min(Long.parseLong(t), MAX_MEMORY_BYTES);
  }

  static double parseShare(String text) {
    double value;
    try {
      value = Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a share of a core such as 0.9: \"" + text + "\"");
    }
    new CpuRule(value, Duration.ofSeconds(1)); // the same checks as in code
    return Math.min(value, MAX_CPU_SHARE);
  }

  static Duration parseWindow(String text) {
    Duration d = Durations.parse(text);
    if (d.isZero()) {
      throw new IllegalArgumentException("a window of 0 cannot be judged");
    }
    return d;
  }

  /**
   * Whether any ceiling or the spin rule is enabled.
   *
   * @return {@code false} for {@link #none()} and anything equal to it but the handler
   */
  public boolean anyEnabled() {
    return memoryBytes > 0 || processes > 0 || cpu.isEnabled() || spin.isEnabled();
  }

  /**
   * A copy with another memory ceiling.
   *
   * @param bytes resident bytes of the whole tree; {@code 0} disables
   * @return new ceilings; these are unchanged
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  public Ceilings withMemoryBytes(long bytes) {
    return new Ceilings(bytes, processes, cpu, spin, handler);
  }

  /**
   * A copy with another process ceiling.
   *
   * @param count live processes of the whole tree; {@code 0} disables
   * @return new ceilings; these are unchanged
   * @throws IllegalArgumentException if {@code count} is negative
   */
  public Ceilings withProcesses(long count) {
    return new Ceilings(memoryBytes, count, cpu, spin, handler);
  }

  /**
   * A copy with another CPU ceiling.
   *
   * @param share average share of one core over {@code window}; {@code 0} disables
   * @param window the trailing window the average is taken over
   * @return new ceilings; these are unchanged
   * @throws IllegalArgumentException as {@link CpuRule#CpuRule}
   */
  public Ceilings withCpu(double share, Duration window) {
    return new Ceilings(memoryBytes, processes, new CpuRule(share, window), spin, handler);
  }

  /**
   * A copy with another spin rule.
   *
   * @param share the share of one core every sample of {@code window} must reach; {@code 0}
   *     disables
   * @param window how long the tree must spin without a pause
   * @return new ceilings; these are unchanged
   * @throws IllegalArgumentException as {@link CpuRule#CpuRule}
   */
  public Ceilings withSpin(double share, Duration window) {
    return new Ceilings(memoryBytes, processes, cpu, new CpuRule(share, window), handler);
  }

  /**
   * A copy with another breach handler.
   *
   * @param value called on the sampler thread with each breach, after the WARN log
   * @return new ceilings; these are unchanged
   */
  public Ceilings withHandler(BreachHandler value) {
    return new Ceilings(memoryBytes, processes, cpu, spin, value);
  }
}
