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
}
