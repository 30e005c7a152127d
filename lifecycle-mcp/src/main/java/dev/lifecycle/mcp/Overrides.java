package dev.lifecycle.mcp;

import dev.lifecycle.internal.Setting;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The settings a builder set in code, each by the {@link Setting} it overrides: a value set here
 * beats configuration, and a setting not set here resolves from configuration, else its default.
 * Not thread-safe (a builder's).
 */
final class Overrides {
  private final Map<Setting<?>, Object> values = new HashMap<>();

  <T> void set(Setting<T> setting, T value) {
    values.put(setting, value);
  }

  /** The value set in code, else the system property, else the variable, else the default. */
  <T> T resolve(
      Setting<T> setting,
      Function<String, String> properties,
      Function<String, String> environment) {
    @SuppressWarnings("unchecked") // set(...) stores only a T under a Setting<T>
    Optional<T> inCode = Optional.ofNullable((T) values.get(setting));
    return setting.resolve(inCode, properties, environment);
  }
}
