package dev.lifecycle.process;

import dev.lifecycle.internal.LazyLogger;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

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
  private static final LazyLogger LOG = LazyLogger.of(PlatformLoader.class);

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
    return Jdk.INSTANCE.platform();
  }

  /** The chosen platform itself (loads it); throws under {@code native} when none is usable. */
  static ProcessPlatform resolved() {
    return Resolved.INSTANCE.platform();
  }

  /** A platform, or the failure that says why there is none: exactly one is non-null. */
  record Loaded(ProcessPlatform loaded, RuntimeException failure) {
    static Loaded of(ProcessPlatform platform) {
      return new Loaded(platform, null);
    }

    static Loaded failed(RuntimeException failure) {
      return new Loaded(null, failure);
    }

    /** The platform; throws an {@link IllegalStateException} that wraps the failure if none. */
    ProcessPlatform platform() {
      if (loaded != null) {
        return loaded;
      }
      throw new IllegalStateException(failure.getMessage(), failure);
    }
  }

  private static final class Jdk {
    static final Loaded INSTANCE = fallback();
  }

  private static final class Providers {
    static final List<ProcessPlatformProvider> ALL = load();
  }

  /** Core's pure-JDK platform, or the exception that says why it cannot be loaded. */
  private static Loaded fallback() {
    try {
      return Loaded.of(instantiate(FALLBACK_PROVIDER).create());
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return Loaded.failed(cannotLoadFallback(e));
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
    static final Loaded INSTANCE = choose(PlatformMode.fromConfig());
  }

  /** The platform for {@code mode}, or the exception that explains why there is none. */
  static Loaded choose(PlatformMode mode) {
    return mode == PlatformMode.JDK ? Loaded.of(jdk()) : choose(mode, Providers.ALL);
  }

  /** The platform for {@code mode} from {@code providers} (highest priority first), or why none. */
  static Loaded choose(PlatformMode mode, List<ProcessPlatformProvider> providers) {
    // The choice is not logged: capabilities() tells it, and the client path creates no logger.
    // Failures are logged.
    if (mode == PlatformMode.JDK) {
      return Loaded.of(jdk());
    }
    List<String> reasons = new ArrayList<>();
    for (ProcessPlatformProvider provider : providers) {
      if (provider.priority() <= FALLBACK_PRIORITY) {
        continue; // the fallback is chosen below, with the warning
      }
      try {
        if (provider.isSupported()) {
          return Loaded.of(provider.create());
        }
        reasons.add(provider.unsupportedReason());
      } catch (RuntimeException | LinkageError e) {
        reasons.add(provider.getClass().getName() + " failed to start: " + e);
        LOG.debug("process platform {} failed to start", provider, e);
      }
    }
    String why =
        reasons.isEmpty()
            ? "no native process platform on the class path (add dev.lifecycle:lifecycle-posix)"
            : String.join("; ", reasons);
    if (mode == PlatformMode.NATIVE) {
      return Loaded.failed(
          new IllegalStateException(
              PlatformMode.PROPERTY + "=native, but no native process platform is usable: " + why));
    }
    LOG.warn(
        "lifecycle is using the pure-JDK process platform, with weaker guarantees (no group"
            + " signals, sessions only through setsid(1), EPERM invisible): {}. Set {}=jdk to"
            + " choose it on purpose, or {}=native to fail instead.",
        why,
        PlatformMode.PROPERTY,
        PlatformMode.PROPERTY);
    return Loaded.of(jdk());
  }

  /**
   * lifecycle-posix's provider when this class's loader can load it, else the providers {@link
   * ServiceLoader} finds, highest priority first. Only lifecycle's own providers are supported
   * ({@link ProcessPlatformProvider}), so the one it ships is looked up by name: a lookup through
   * {@code ServiceLoader} opens every jar of the class path on a short program's first spawn. The
   * lookup still serves loaders that see lifecycle-posix only through the thread's context loader.
   */
  static List<ProcessPlatformProvider> load() {
    try {
      return List.of(instantiate(NATIVE_PROVIDER));
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      // not visible to this loader: ask the ServiceLoader
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
      LOG.warn("cannot load process platform providers: {}", e.toString());
    }
    return List.copyOf(found);
  }

  /** A new instance of the provider class named, loaded by this class's loader. */
  private static ProcessPlatformProvider instantiate(String className)
      throws ReflectiveOperationException {
    return Class.forName(className, true, PlatformLoader.class.getClassLoader())
        .asSubclass(ProcessPlatformProvider.class)
        .getDeclaredConstructor()
        .newInstance();
  }
}
