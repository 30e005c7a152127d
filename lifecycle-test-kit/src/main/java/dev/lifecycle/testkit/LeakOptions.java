package dev.lifecycle.testkit;

import dev.lifecycle.internal.Durations;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.time.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything a leak check is told: scope, linger, action, attribution tier and what never counts as
 * a leak. One immutable value shared by every entry point: {@link NoProcessLeaks @NoProcessLeaks}
 * and {@link ProcessLeakExtension#with(Builder)} produce it, the Platform listener ({@link
 * ProcessLeakListener}) reads it from configuration parameters, and {@link LeakTracker} consumes
 * it. Thread-safe.
 *
 * <p>Precedence, highest first: what the annotation or the builder sets explicitly, then the JUnit
 * configuration parameters ({@code junit-platform.properties}, {@code -D} system properties,
 * launcher configuration), then the defaults below. Configuration values are validated once; an
 * unusable one is logged as a warning and the default is used.
 *
 * <table>
 *   <caption>Configuration parameters</caption>
 *   <tr><th>parameter</th><th>values</th></tr>
 *   <tr><td>{@value #LINGER_PARAMETER}</td><td>{@link Limit#parse(String)} grammar: {@code 3s},
 *       {@code 500ms}, {@code PT2S}; a bare integer is milliseconds; {@code 0} checks once</td></tr>
 *   <tr><td>{@value #ACTION_PARAMETER}</td><td>{@code fail} or {@code warn}</td></tr>
 *   <tr><td>{@value #SCOPE_PARAMETER}</td><td>{@code method} or {@code class}</td></tr>
 *   <tr><td>{@value #ATTRIBUTION_PARAMETER}</td><td>{@code auto}, {@code cgroup} or
 *       {@code evidence}</td></tr>
 *   <tr><td>{@value #IGNORE_PARAMETER}</td><td>comma-separated regular expressions matched
 *       anywhere in a command line; added to the annotation's or builder's</td></tr>
 *   <tr><td>{@value #OTHER_ENGINES_PARAMETER}</td><td>{@code true}: the Platform listener checks
 *       tests of engines other than Jupiter (JUnit 4 through Vintage, ...)</td></tr>
 * </table>
 */
public final class LeakOptions {
  /** Configuration parameter for the linger (see the table above). */
  public static final String LINGER_PARAMETER = "lifecycle.leaks.linger";

  /** Configuration parameter for the action: {@code fail} or {@code warn}. */
  public static final String ACTION_PARAMETER = "lifecycle.leaks.action";

  /** Configuration parameter for the scope: {@code method} or {@code class}. */
  public static final String SCOPE_PARAMETER = "lifecycle.leaks.scope";

  /**
   * Configuration parameter for the attribution tier: {@code auto}, {@code cgroup} or {@code
   * evidence}.
   */
  public static final String ATTRIBUTION_PARAMETER = "lifecycle.leaks.attribution";

  /** Configuration parameter for the extra ignore patterns, comma-separated regular expressions. */
  public static final String IGNORE_PARAMETER = "lifecycle.leaks.ignore";

  /**
   * Configuration parameter for the switch that makes the Platform listener check non-Jupiter tests
   * too.
   */
  public static final String OTHER_ENGINES_PARAMETER = "lifecycle.leaks.otherEngines";

  /**
   * Covers a typical SIGTERM grace and PID 1's lazy orphan reaping (up to ~2 s on some CI boxes); a
   * clean test never waits, the check returns at once.
   */
  public static final Duration DEFAULT_LINGER = Duration.ofSeconds(3);

  /** A leak fails the test: a leak nobody reads about is a leak nobody fixes. */
  public static final LeakAction DEFAULT_ACTION = LeakAction.FAIL;

  /** Per method and per class: blame as narrow as possible, and class fixtures checked too. */
  public static final LeakScope DEFAULT_SCOPE = LeakScope.METHOD;

  /** The exact tier wherever the machine offers it. */
  public static final Attribution DEFAULT_ATTRIBUTION = Attribution.AUTO;

  /**
   * Evidence tier only: sees intermediates that live 100 ms or more; each sample lists /proc and
   * reads only processes it has not seen before (see docs/TEST-KIT.md for the measured cost).
   */
  public static final Duration DEFAULT_SAMPLE_EVERY = Duration.ofMillis(100);

  private static final Logger LOG = LoggerFactory.getLogger(LeakOptions.class);
  private static final LeakOptions DEFAULTS = builder().build();

  private final LeakScope scope;
  private final Duration linger;
  private final LeakAction action;
  private final Attribution attribution;
  private final List<Pattern> ignore;
  private final List<Predicate<? super LeakedProcess>> filters;
  private final Duration sampleEvery;
  private final ProcessPlatform platform; // null: ProcessPlatform.get() when first asked

  private LeakOptions(
      LeakScope scope,
      Duration linger,
      LeakAction action,
      Attribution attribution,
      List<Pattern> ignore,
      List<Predicate<? super LeakedProcess>> filters,
      Duration sampleEvery,
      ProcessPlatform platform) {
    this.scope = scope;
    this.linger = linger;
    this.action = action;
    this.attribution = attribution;
    this.ignore = List.copyOf(ignore);
    this.filters = List.copyOf(filters);
    this.sampleEvery = sampleEvery;
    this.platform = platform;
  }

  /**
   * The defaults, with no configuration.
   *
   * @return the options {@code builder().build()} gives: every {@code DEFAULT_*} value, nothing
   *     ignored
   */
  public static LeakOptions defaults() {
    return DEFAULTS;
  }

  /**
   * A builder with nothing set explicitly.
   *
   * @return a new builder; what it leaves unset comes from the configuration or the defaults
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * When the check runs: after each test method or after the whole class.
   *
   * @return {@link LeakScope#METHOD} or {@link LeakScope#CLASS}, never {@link LeakScope#INFERRED}
   */
  public LeakScope scope() {
    return scope;
  }

  /**
   * How long new processes may take to exit by themselves.
   *
   * @return the linger; {@link Duration#ZERO} checks once
   */
  public Duration linger() {
    return linger;
  }

  /**
   * What a leak does to the test.
   *
   * @return {@link LeakAction#FAIL} or {@link LeakAction#WARN}, never {@link LeakAction#INFERRED}
   */
  public LeakAction action() {
    return action;
  }

  /**
   * How processes are attributed to a test (cgroup membership, evidence, or whichever works here).
   *
   * @return the attribution tier
   */
  public Attribution attribution() {
    return attribution;
  }

  /**
   * Command-line patterns of processes never reported.
   *
   * @return the patterns, unmodifiable; a process matches when a pattern is found anywhere in its
   *     command line
   */
  public List<Pattern> ignore() {
    return ignore;
  }

  /**
   * Whether {@code leak} is excluded by a pattern or a predicate filter.
   *
   * @param leak a process the check found
   * @return {@code true} if an {@link #ignore()} pattern is found in its command line or an {@code
   *     ignoreIf} filter accepts it
   */
  public boolean isIgnored(LeakedProcess leak) {
    for (Pattern p : ignore) {
      if (p.matcher(leak.commandLine()).find()) {
        return true;
      }
    }
    for (Predicate<? super LeakedProcess> f : filters) {
      if (f.test(leak)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Background sampling period of the evidence tier.
   *
   * @return the period; {@link Duration#ZERO} disables background sampling
   */
  public Duration sampleEvery() {
    return sampleEvery;
  }

  /**
   * The platform processes are read and signalled with.
   *
   * @return the builder's platform, or {@link ProcessPlatform#get()} when none was set
   */
  public ProcessPlatform platform() {
    return platform != null ? platform : ProcessPlatform.get();
  }

  @Override
  public String toString() {
    return "LeakOptions[scope="
        + scope
        + ", linger="
        + linger
        + ", action="
        + action
        + ", attribution="
        + attribution
        + ", ignore="
        + ignore
        + ", filters="
        + filters.size()
        + ", sampleEvery="
        + sampleEvery
        + "]";
  }

  /**
   * Options as set explicitly; whatever is left unset comes from the configuration or the defaults
   * when built. Not thread-safe; {@link #build} may be called any number of times.
   */
  public static final class Builder {
    private LeakScope scope = LeakScope.INFERRED;
    private Duration linger; // null: inferred
    private LeakAction action = LeakAction.INFERRED;
    private Attribution attribution; // null: inferred
    private final List<Pattern> ignore = new ArrayList<>();
    private final List<Predicate<? super LeakedProcess>> filters = new ArrayList<>();
    private Duration sampleEvery = DEFAULT_SAMPLE_EVERY;
    private ProcessPlatform platform;

    private Builder() {}

    /**
     * When the check runs; {@link LeakScope#INFERRED} leaves it to the configuration.
     *
     * @param value the scope
     * @return this builder
     */
    public Builder scope(LeakScope value) {
      this.scope = Objects.requireNonNull(value, "scope");
      return this;
    }

    /**
     * How long processes may take to exit by themselves; {@link Duration#ZERO} checks once. Values
     * over {@link Limit#MAX} are clamped.
     *
     * @param value the linger
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public Builder linger(Duration value) {
      Limit limit = Limit.of(value); // rejects negatives, clamps the huge
      this.linger = limit.asOptional().orElse(Duration.ZERO);
      return this;
    }

    /**
     * The linger as text in {@link Limit#parse(String)} grammar ({@code 3s}, {@code 500ms}, {@code
     * PT2S}; a bare integer is milliseconds; {@code 0} checks once).
     *
     * @param text the linger as text
     * @return this builder
     * @throws IllegalArgumentException naming the text and the reason when unusable
     */
    public Builder linger(String text) {
      this.linger = parseLinger(text);
      return this;
    }

    /**
     * What a leak does; {@link LeakAction#INFERRED} leaves it to the configuration.
     *
     * @param value the action
     * @return this builder
     */
    public Builder action(LeakAction value) {
      this.action = Objects.requireNonNull(value, "action");
      return this;
    }

    /**
     * The attribution tier; {@link Attribution#CGROUP} makes the check fail fast where no cgroup
     * can be created.
     *
     * @param value the tier
     * @return this builder
     */
    public Builder attribution(Attribution value) {
      this.attribution = Objects.requireNonNull(value, "attribution");
      return this;
    }

    /**
     * Never report processes whose command line contains a match of {@code regex}.
     *
     * @param regex a {@link Pattern} regular expression, found anywhere in the command line
     * @return this builder
     * @throws java.util.regex.PatternSyntaxException if {@code regex} is not a valid expression
     */
    public Builder ignore(String regex) {
      this.ignore.add(Pattern.compile(regex));
      return this;
    }

    /**
     * Never report processes {@code filter} accepts (it sees pid, command line, parent chain, age
     * and evidence). Processes a fixture starts on purpose can also be declared where they start:
     * {@link SharedProcesses}.
     *
     * @param filter returns {@code true} for a process that must not count as a leak
     * @return this builder
     */
    public Builder ignoreIf(Predicate<? super LeakedProcess> filter) {
      this.filters.add(Objects.requireNonNull(filter, "filter"));
      return this;
    }

    /**
     * Background sampling period of the evidence tier; default {@link #DEFAULT_SAMPLE_EVERY}.
     *
     * @param value the period; {@link Duration#ZERO} disables background sampling
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public Builder sampleEvery(Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("sampleEvery must not be negative: " + value);
      }
      this.sampleEvery = value;
      return this;
    }

    /**
     * The platform to read and signal processes with; {@link ProcessPlatform#get()} by default.
     *
     * @param value the platform
     * @return this builder
     */
    public Builder platform(ProcessPlatform value) {
      this.platform = Objects.requireNonNull(value, "platform");
      return this;
    }

    /**
     * The options with nothing configured: what is unset takes the default.
     *
     * @return new immutable options
     */
    public LeakOptions build() {
      return build(key -> Optional.empty());
    }

    /**
     * The options, taking what is unset from {@code configuration}, then the defaults. An unusable
     * configured value is logged as a warning and the default is used.
     *
     * @param configuration a configuration parameter by name, e.g. {@code
     *     ExtensionContext::getConfigurationParameter}
     * @return new immutable options
     */
    public LeakOptions build(Function<String, Optional<String>> configuration) {
      Objects.requireNonNull(configuration, "configuration");
      LeakScope s =
          scope != LeakScope.INFERRED
              ? scope
              : configured(configuration, SCOPE_PARAMETER, LeakScope.class, DEFAULT_SCOPE);
      LeakAction a =
          action != LeakAction.INFERRED
              ? action
              : configured(configuration, ACTION_PARAMETER, LeakAction.class, DEFAULT_ACTION);
      Attribution t =
          attribution != null
              ? attribution
              : configured(
                  configuration, ATTRIBUTION_PARAMETER, Attribution.class, DEFAULT_ATTRIBUTION);
      Duration l = linger;
      if (l == null) {
        l = DEFAULT_LINGER;
        Optional<String> text = configuration.apply(LINGER_PARAMETER);
        if (text.isPresent()) {
          try {
            l = parseLinger(text.get());
          } catch (IllegalArgumentException e) {
            LOG.warn("Ignoring {}: {}; using {}", LINGER_PARAMETER, e.getMessage(), l);
          }
        }
      }
      List<Pattern> patterns = new ArrayList<>(ignore);
      configuration
          .apply(IGNORE_PARAMETER)
          .ifPresent(
              text -> {
                for (String regex : text.split(",")) {
                  if (regex.isBlank()) {
                    continue;
                  }
                  try {
                    patterns.add(Pattern.compile(regex.strip()));
                  } catch (PatternSyntaxException e) {
                    LOG.warn("Ignoring {} entry '{}': {}", IGNORE_PARAMETER, regex, e.getMessage());
                  }
                }
              });
      return new LeakOptions(s, l, a, t, patterns, filters, sampleEvery, platform);
    }

    /** A builder with what {@code annotation} sets explicitly. */
    static Builder of(NoProcessLeaks annotation) {
      Builder b = builder().scope(annotation.scope()).action(annotation.action());
      if (!annotation.linger().isBlank()) {
        b.linger(annotation.linger());
      }
      for (String regex : annotation.ignore()) {
        b.ignore(regex);
      }
      return b;
    }

    private static Duration parseLinger(String text) {
      try {
        return Durations.parse(text);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "unusable linger \"" + text + "\": " + e.getMessage(), e);
      }
    }

    private static <E extends Enum<E>> E configured(
        Function<String, Optional<String>> configuration,
        String parameter,
        Class<E> type,
        E fallback) {
      Optional<String> text = configuration.apply(parameter);
      if (text.isEmpty() || text.get().isBlank()) {
        return fallback;
      }
      String name = text.get().strip().toUpperCase(Locale.ROOT);
      try {
        E value = Enum.valueOf(type, name);
        if (!value.name().equals("INFERRED")) {
          return value;
        }
      } catch (IllegalArgumentException e) {
        // reported below
      }
      LOG.warn(
          "Ignoring {}='{}': not one of {}; using {}",
          parameter,
          text.get(),
          choices(type),
          fallback.name().toLowerCase(Locale.ROOT));
      return fallback;
    }

    private static <E extends Enum<E>> String choices(Class<E> type) {
      List<String> out = new ArrayList<>();
      for (E e : type.getEnumConstants()) {
        if (!e.name().equals("INFERRED")) {
          out.add(e.name().toLowerCase(Locale.ROOT));
        }
      }
      return String.join(", ", out);
    }
  }
}
