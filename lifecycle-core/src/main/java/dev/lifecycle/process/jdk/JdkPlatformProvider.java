package dev.lifecycle.process.jdk;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessPlatformProvider;

/**
 * Offers the pure-JDK fallback to {@link ProcessPlatform#get()} at priority {@value #PRIORITY}:
 * always supported, chosen only when no native provider is. Registered as a service of core itself,
 * so the platform SPI needs no compile-time reference to its implementations. Thread-safe
 * (stateless).
 */
public final class JdkPlatformProvider implements ProcessPlatformProvider {
  /** The priority reserved for the fallback: every native provider returns more. */
  public static final int PRIORITY = 0;

  /** For {@link java.util.ServiceLoader}. */
  public JdkPlatformProvider() {}

  @Override
  public int priority() {
    return PRIORITY;
  }

  @Override
  public boolean isSupported() {
    return true;
  }

  @Override
  public ProcessPlatform create() {
    return JdkPlatform.create();
  }
}
