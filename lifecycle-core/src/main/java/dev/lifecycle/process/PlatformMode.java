package dev.lifecycle.process;

import dev.lifecycle.internal.Setting;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which platform {@link ProcessPlatform#get()} may choose, from the system property {@value
 * #PROPERTY} or the environment variable {@value #VARIABLE} (the property first, as for every
 * lifecycle setting): {@code auto} (the default: the best supported provider, else the pure-JDK
 * fallback with a warning), {@code native} (a native provider or an error: fail fast instead of
 * running with weaker guarantees), {@code jdk} (the pure-JDK fallback, chosen on purpose: no
 * warning). An unusable value is logged and the next source down is used.
 */
enum PlatformMode {
  AUTO,
  NATIVE,
  JDK;

  static final String PROPERTY = "lifecycle.platform";
  static final String VARIABLE = "LIFECYCLE_PLATFORM";

  private static final Setting<PlatformMode> SETTING = Setting.choice(PROPERTY, VARIABLE, AUTO);

  static PlatformMode fromConfig() {
    return SETTING.resolve();
  }

  static PlatformMode fromConfig(
      Function<String, String> properties, Function<String, String> environment) {
    return SETTING.resolve(Optional.empty(), properties, environment);
  }
}
