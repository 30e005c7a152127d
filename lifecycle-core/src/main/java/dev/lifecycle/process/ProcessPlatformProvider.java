package dev.lifecycle.process;

/**
 * A {@link java.util.ServiceLoader} entry point through which a module offers a {@link
 * ProcessPlatform}. Register it in {@code
 * META-INF/services/dev.lifecycle.process.ProcessPlatformProvider}. Implementations must be
 * thread-safe.
 *
 * <p>Public only because {@link java.util.ServiceLoader} needs a service type the provider's module
 * can read; the only supported providers are lifecycle's own ({@code lifecycle-posix} and core's
 * fallback). A user picks a platform with {@code lifecycle.platform} or passes one to a builder
 * instead.
 */
public interface ProcessPlatformProvider {

  /**
   * Higher wins among supported providers. 0 is reserved for core's pure-JDK fallback; a provider
   * at 0 or below is never chosen ahead of it.
   *
   * @return the priority; a native platform returns more than 0
   */
  int priority();

  /**
   * Whether this provider can run here (OS, architecture, native library). Must not throw.
   *
   * @return {@code true} if {@link #create()} can give a working platform here
   */
  boolean isSupported();

  /**
   * Creates the platform; called at most once per JVM by {@link ProcessPlatform#get()}.
   *
   * @return the platform
   */
  ProcessPlatform create();

  /**
   * Why {@link #isSupported()} is false, for the warning logged when a weaker platform is chosen.
   * Must not throw.
   *
   * @return the reason, for people reading the log
   */
  default String unsupportedReason() {
    return getClass().getName() + " is not supported here";
  }
}
