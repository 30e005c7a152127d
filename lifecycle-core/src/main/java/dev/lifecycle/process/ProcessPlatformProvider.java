package dev.lifecycle.process;

/**
 * A {@link java.util.ServiceLoader} entry point through which a module offers a {@link
 * ProcessPlatform}. Register it in {@code
 * META-INF/services/dev.lifecycle.process.ProcessPlatformProvider}.
 */
public interface ProcessPlatformProvider {

  /** Higher wins among supported providers. The pure-JDK fallback is 0. */
  int priority();

  /** Whether this provider can run here (OS, architecture, native library). Must not throw. */
  boolean isSupported();

  /** Creates the platform; called at most once per JVM by {@link ProcessPlatform#get()}. */
  ProcessPlatform create();

  /**
   * Why {@link #isSupported()} is false, for the warning logged when a weaker platform is chosen.
   * Must not throw.
   */
  default String unsupportedReason() {
    return getClass().getName() + " is not supported here";
  }
}
