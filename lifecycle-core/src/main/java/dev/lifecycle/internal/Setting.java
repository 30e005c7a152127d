package dev.lifecycle.internal;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * One configurable value of lifecycle: the system property and the environment variable that may
 * set it, its default, and how its text is parsed. Every setting resolves with the same precedence,
 * highest first: Immutable and thread-safe.
 *
 * <ol>
 *   <li>a value given in code (a builder call): what a program asks for explicitly is what it gets;
 *   <li>the system property;
 *   <li>the environment variable;
 *   <li>the default.
 * </ol>
 *
 * Text from the property or the variable that cannot be parsed is logged at WARN, naming the
 * source, the setting and the bad value, and the next source down is used: a typo never disables a
 * guard and never stops a program. {@link #parse(String)} is the strict form for callers that must
 * refuse bad text: its error names the setting and the value. Blank text is bad text (a variable
 * set to nothing is a mistake worth a warning); only an absent property or variable is "not set".
 *
 * <p>Immutable and thread-safe; the sources are read at every {@link #resolve()}.
 *
 * @param <T> the value's type
 */
public final class Setting<T> {
  private static final LazyLogger LOG = LazyLogger.of(Setting.class);

  private final String property;
  private final String variable;
  private final T defaultValue;
  private final Function<String, T> parser;

  private Setting(String property, String variable, T defaultValue, Function<String, T> parser) {
    this.property = requireNonNull(property, "property");
    this.variable = requireNonNull(variable, "variable");
    this.defaultValue = requireNonNull(defaultValue, "defaultValue");
    this.parser = requireNonNull(parser, "parser");
  }

  /**
   * A setting whose text {@code parser} reads; the parser throws {@link IllegalArgumentException}
   * with the reason for text it refuses.
   *
   * @param property the system property's name, e.g. {@code lifecycle.tether.grace}
   * @param variable the environment variable's name, e.g. {@code LIFECYCLE_TETHER_GRACE}
   * @param defaultValue the value when nothing else sets it
   * @param parser reads the trimmed text of the property or variable
   * @param <T> the value's type
   * @return the setting
   */
  public static <T> Setting<T> of(
      String property, String variable, T defaultValue, Function<String, T> parser) {
    return new Setting<>(property, variable, defaultValue, parser);
  }

  /**
   * A grace (SIGTERM to SIGKILL) or a wait, as {@link Durations#parse}: {@code 0} means none
   * (SIGKILL at once, no wait); values over {@link Durations#MAX} clamp.
   *
   * @param property the system property's name
   * @param variable the environment variable's name
   * @param defaultValue the value when nothing else sets it, not negative
   * @return the setting
   */
  public static Setting<Duration> duration(
      String property, String variable, Duration defaultValue) {
    return of(property, variable, Durations.nonNegative(defaultValue, property), Durations::parse);
  }

  /**
   * A setting with one of {@code type}'s constants, written in any case ({@code auto}, {@code
   * AUTO}).
   *
   * @param property the system property's name
   * @param variable the environment variable's name
   * @param defaultValue the value when nothing else sets it
   * @param <E> the enum
   * @return the setting
   */
  public static <E extends Enum<E>> Setting<E> choice(
      String property, String variable, E defaultValue) {
    Class<E> type = defaultValue.getDeclaringClass();
    return of(
        property,
        variable,
        defaultValue,
        text -> {
          for (E constant : type.getEnumConstants()) {
            if (constant.name().equalsIgnoreCase(text)) {
              return constant;
            }
          }
          StringBuilder names = new StringBuilder();
          for (E constant : type.getEnumConstants()) {
            names.append(names.length() == 0 ? "" : ", ");
            names.append(constant.name().toLowerCase(Locale.ROOT));
          }
          throw new IllegalArgumentException("not one of " + names);
        });
  }

  /**
   * A yes/no setting: {@code true} or {@code false}, in any case.
   *
   * @param property the system property's name
   * @param variable the environment variable's name
   * @param defaultValue the value when nothing else sets it
   * @return the setting
   */
  public static Setting<Boolean> flag(String property, String variable, boolean defaultValue) {
    return of(
        property,
        variable,
        defaultValue,
        text -> {
          if (text.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
          }
          if (text.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
          }
          throw new IllegalArgumentException("not true or false");
        });
  }

  /**
   * The system property's name.
   *
   * @return e.g. {@code lifecycle.tether.grace}
   */
  public String property() {
    return property;
  }

  /**
   * The environment variable's name.
   *
   * @return e.g. {@code LIFECYCLE_TETHER_GRACE}
   */
  public String variable() {
    return variable;
  }

  /**
   * The value when neither code, the property nor the variable sets one.
   *
   * @return the default
   */
  public T defaultValue() {
    return defaultValue;
  }

  /**
   * The value from this JVM's system properties and environment, else the default.
   *
   * @return the resolved value
   */
  public T resolve() {
    return resolve(Optional.empty());
  }

  /**
   * {@code explicit} when given, else the value from this JVM's system properties and environment,
   * else the default.
   *
   * @param explicit the value set in code, or empty
   * @return the resolved value
   */
  public T resolve(Optional<T> explicit) {
    // Looked up here, not through method references: each is a lambda class to link.
    return explicit.isPresent()
        ? explicit.get()
        : choose(System.getProperty(property), System.getenv(variable));
  }

  /**
   * {@code explicit} when given, else the first usable value of the property (looked up in {@code
   * properties}) and the variable (in {@code environment}), else the default.
   *
   * @param explicit the value set in code, or empty
   * @param properties looks up a system property by name (null when absent)
   * @param environment looks up an environment variable by name (null when absent)
   * @return the resolved value
   */
  public T resolve(
      Optional<T> explicit,
      Function<String, String> properties,
      Function<String, String> environment) {
    return explicit.isPresent()
        ? explicit.get()
        : choose(properties.apply(property), environment.apply(variable));
  }

  private T choose(String propertyText, String variableText) {
    Optional<T> fromProperty = lenient(propertyText, "system property " + property);
    if (fromProperty.isPresent()) {
      return fromProperty.get();
    }
    return lenient(variableText, "environment variable " + variable).orElse(defaultValue);
  }

  /**
   * Parses {@code text} as this setting's value, strictly.
   *
   * @param text the text, e.g. as a user typed it
   * @return the value
   * @throws IllegalArgumentException naming the setting, the text and why it is refused
   */
  public T parse(String text) {
    requireNonNull(text, "text");
    try {
      return parser.apply(text.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          property + " / " + variable + ": \"" + text + "\" is unusable: " + e.getMessage(), e);
    }
  }

  private Optional<T> lenient(String text, String source) {
    if (text == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(parser.apply(text.trim()));
    } catch (IllegalArgumentException e) {
      LOG.warn("Ignoring {}=\"{}\": {}", source, text, e.getMessage());
      return Optional.empty();
    }
  }

  @Override
  public String toString() {
    return property + " / " + variable + " (default " + defaultValue + ")";
  }
}
