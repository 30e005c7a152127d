package dev.lifecycle.process;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the platform once per JVM (holder idiom: lazy, thread-safe, no locks afterwards).
 *
 * <p>{@link #best()} is a {@link LazyPlatform}: providers are looked up, and native code loaded,
 * only when something needs more than {@code /proc} can answer (a spawn, a signal, the
 * capabilities). Under {@link PlatformMode#NATIVE} the choice is made at once so a missing native
 * platform fails the first {@link ProcessPlatform#get()}.
 *
 * <p>Native platforms come from {@link ProcessPlatformProvider}s found by {@link ServiceLoader}
 * (looked up only when the platform itself is needed). The pure-JDK fallback is core's own
 * provider, loaded by its class name ({@link #FALLBACK_PROVIDER}): reads served before the platform
 * is needed never load another provider's classes, and this package (the SPI) refers to no
 * implementation in its code.
 */
final class PlatformLoader {
  /**
   * Created on first use: a client path that logs nothing never starts slf4j (its provider lookup
   * scans the class path, tens of milliseconds in a cold JVM).
   */
  private static final class Log {
    static final Logger LOG = LoggerFactory.getLogger(PlatformLoader.class);
  }

  /** The priority of core's pure-JDK provider; native providers return more. */
  static final int FALLBACK_PRIORITY = 0;

  /** Core's pure-JDK provider, in a package of this module that is not exported. */
  static final String FALLBACK_PROVIDER = "dev.lifecycle.process.jdk.JdkPlatformProvider";

  private PlatformLoader() {}

  static ProcessPlatform best() {
    return Best.NATIVE_REQUIRED ? resolved() : Best.LAZY;
  }

  static ProcessPlatform jdk() {
    if (Jdk.INSTANCE instanceof ProcessPlatform platform) {
      return platform;
    }
    RuntimeException failure = (RuntimeException) Jdk.INSTANCE;
    throw new IllegalStateException(failure.getMessage(), failure);
  }

  /** The chosen platform itself (loads it); throws under {@code native} when none is usable. */
  static ProcessPlatform resolved() {
    if (Resolved.INSTANCE instanceof ProcessPlatform platform) {
      return platform;
    }
    RuntimeException failure = (RuntimeException) Resolved.INSTANCE;
    throw new IllegalStateException(failure.getMessage(), failure);
  }

  private static final class Jdk {
    static final Object INSTANCE = fallback();
  }

  private static final class Providers {
    static final List<ProcessPlatformProvider> ALL = load();
  }

  /** Core's pure-JDK platform, or the exception that says why it cannot be loaded. */
  private static Object fallback() {
    try {
      ProcessPlatformProvider provider =
          (ProcessPlatformProvider)
              Class.forName(FALLBACK_PROVIDER).getDeclaredConstructor().newInstance();
      return provider.create();
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return new IllegalStateException("the pure-JDK process platform cannot be loaded: " + e, e);
    }
  }

  private static final class Best {
    static final boolean NATIVE_REQUIRED = PlatformMode.fromConfig() == PlatformMode.NATIVE;
    static final ProcessPlatform LAZY = new LazyPlatform();
  }

  private static final class Resolved {
    static final Object INSTANCE = choose(PlatformMode.fromConfig());
  }

  /** The platform for {@code mode}, or the exception that explains why there is none. */
  static Object choose(PlatformMode mode) {
    // The choice is not logged: capabilities() tells it, and binding a logger costs a short-lived
    // JVM milliseconds (docs/PERFORMANCE.md, "Fast clients"). Failures are logged.
    if (mode == PlatformMode.JDK) {
      return jdk();
    }
    List<String> reasons = new ArrayList<>();
    for (ProcessPlatformProvider provider : Providers.ALL) {
      if (provider.priority() <= FALLBACK_PRIORITY) {
        continue; // the fallback is chosen below, with the warning
      }
      try {
        if (provider.isSupported()) {
          return provider.create();
        }
        reasons.add(provider.unsupportedReason());
      } catch (RuntimeException | LinkageError e) {
        reasons.add(provider.getClass().getName() + " failed to start: " + e);
        Log.LOG.debug("process platform {} failed to start", provider, e);
      }
    }
    String why =
        reasons.isEmpty()
            ? "no native process platform on the class path (add dev.lifecycle:lifecycle-posix)"
            : String.join("; ", reasons);
    if (mode == PlatformMode.NATIVE) {
      return new IllegalStateException(
          PlatformMode.PROPERTY + "=native, but no native process platform is usable: " + why);
    }
    Log.LOG.warn(
        "lifecycle is using the pure-JDK process platform, with weaker guarantees (no group"
            + " signals, sessions only through setsid(1), EPERM invisible): {}. Set {}=jdk to"
            + " choose it on purpose, or {}=native to fail instead.",
        why,
        PlatformMode.PROPERTY,
        PlatformMode.PROPERTY);
    return jdk();
  }

  private static List<ProcessPlatformProvider> load() {
    try {
      return ServiceLoader.load(ProcessPlatformProvider.class).stream()
          .map(ServiceLoader.Provider::get)
          .sorted(Comparator.comparingInt(ProcessPlatformProvider::priority).reversed())
          .toList();
    } catch (java.util.ServiceConfigurationError e) {
      Log.LOG.warn("cannot load process platform providers: {}", e.toString());
      return List.of();
    }
  }
}
