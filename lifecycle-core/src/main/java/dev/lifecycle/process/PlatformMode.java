package dev.lifecycle.process;

import java.util.Locale;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which platform {@link ProcessPlatform#get()} may choose, from the system property {@value
 * #PROPERTY} or the environment variable {@value #VARIABLE} (the property wins): {@code auto} (the
 * default: the best supported provider, else the pure-JDK fallback with a warning), {@code native}
 * (a native provider or an error: fail fast instead of running with weaker guarantees), {@code jdk}
 * (the pure-JDK fallback, chosen on purpose: no warning). An unusable value is logged and ignored.
 */
enum PlatformMode {
  AUTO,
  NATIVE,
  JDK;

  static final String PROPERTY = "lifecycle.platform";
  static final String VARIABLE = "LIFECYCLE_PLATFORM";

  private static final Logger LOG = LoggerFactory.getLogger(PlatformMode.class);

  static PlatformMode fromConfig() {
    return fromConfig(System::getProperty, System::getenv);
  }

  static PlatformMode fromConfig(
      Function<String, String> properties, Function<String, String> environment) {
    PlatformMode mode =
        parseOr(environment.apply(VARIABLE), AUTO, "environment variable " + VARIABLE);
    return parseOr(properties.apply(PROPERTY), mode, "system property " + PROPERTY);
  }

  private static PlatformMode parseOr(String text, PlatformMode fallback, String source) {
    if (text == null || text.isBlank()) {
      return fallback;
    }
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      LOG.warn("{}={} is not one of auto, native, jdk; using {}", source, text, fallback);
      return fallback;
    }
  }
}
