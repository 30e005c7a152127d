package dev.lifecycle.process;

import java.util.ArrayList;
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
 * <p>The native platform is lifecycle-posix's provider, loaded by its class name ({@link
 * #NATIVE_PROVIDER}) when the platform itself is needed, or else whatever {@link ServiceLoader}
 * finds. The pure-JDK fallback is core's own provider, loaded by its class name ({@link
 * #FALLBACK_PROVIDER}): reads served before the platform is needed never load another provider's
 * classes, and this package (the SPI) refers to no implementation in its code.
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

  /** lifecycle-posix's provider. */
  static final String NATIVE_PROVIDER = "dev.lifecycle.posix.PosixPlatformProvider";

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
    Object provider = instantiate(FALLBACK_PROVIDER);
    if (!(provider instanceof ProcessPlatformProvider fallback)) {
      return cannotLoadFallback((Throwable) provider);
    }
    try {
      return fallback.create();
    } catch (RuntimeException | LinkageError e) {
      return cannotLoadFallback(e);
    }
  }

  private static IllegalStateException cannotLoadFallback(Throwable why) {
    return new IllegalStateException("the pure-JDK process platform cannot be loaded: " + why, why);
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
    return mode == PlatformMode.JDK ? jdk() : choose(mode, Providers.ALL);
  }

  /** The platform for {@code mode} from {@code providers} (highest priority first), or why none. */
  static Object choose(PlatformMode mode, List<ProcessPlatformProvider> providers) {
    // The choice is not logged: capabilities() tells it, and binding a logger costs a short-lived
    // JVM milliseconds (docs/PERFORMANCE.md, "Fast clients"). Failures are logged.
    if (mode == PlatformMode.JDK) {
      return jdk();
    }
    List<String> reasons = new ArrayList<>();
    for (ProcessPlatformProvider provider : providers) {
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

  /**
   * lifecycle-posix's provider when this class's loader can load it, else the providers {@link
   * ServiceLoader} finds, highest priority first. Only lifecycle's own providers are supported
   * ({@link ProcessPlatformProvider}), so the one it ships is looked up by name: a lookup through
   * {@code ServiceLoader} opens every jar of the class path (tens of milliseconds of a short
   * program's first spawn). The lookup still serves loaders that see lifecycle-posix only through
   * the thread's context loader.
   */
  static List<ProcessPlatformProvider> load() {
    Object known = instantiate(NATIVE_PROVIDER);
    if (known instanceof ProcessPlatformProvider provider) {
      return List.of(provider);
    }
    List<ProcessPlatformProvider> found = new ArrayList<>();
    try {
      for (ProcessPlatformProvider provider : ServiceLoader.load(ProcessPlatformProvider.class)) {
        int at = 0;
        while (at < found.size() && found.get(at).priority() >= provider.priority()) {
          at++;
        }
        found.add(at, provider);
      }
    } catch (java.util.ServiceConfigurationError e) {
      Log.LOG.warn("cannot load process platform providers: {}", e.toString());
    }
    return List.copyOf(found);
  }

  /** A new instance of the provider class named, or the exception that says why there is none. */
  private static Object instantiate(String className) {
    try {
      return Class.forName(className, true, PlatformLoader.class.getClassLoader())
          .asSubclass(ProcessPlatformProvider.class)
          .getDeclaredConstructor()
          .newInstance();
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return e;
    }
  }
}
