package dev.lifecycle.process.jdk;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessPlatformProvider;

/**
 * Offers the pure-JDK fallback to {@link ProcessPlatform#get()} at priority {@value #PRIORITY}:
 * always supported, chosen only when no native provider is. Loaded by its class name from the SPI
 * package, which so refers to no implementation in its code. Thread-safe (stateless).
 */
public final class JdkPlatformProvider implements ProcessPlatformProvider {
  /** The priority reserved for the fallback: every native provider returns more. */
  public static final int PRIORITY = 0;

  /** Created once per JVM, by name, by {@link ProcessPlatform#get()}. */
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
