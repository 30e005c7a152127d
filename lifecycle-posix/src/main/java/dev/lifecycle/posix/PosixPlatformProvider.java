package dev.lifecycle.posix;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessPlatformProvider;

/** Offers {@link PosixPlatform} to {@link ProcessPlatform#get()} ahead of the pure-JDK fallback. */
public final class PosixPlatformProvider implements ProcessPlatformProvider {

  /** Above the pure-JDK fallback (0). */
  public static final int PRIORITY = 100;

  /** For {@link java.util.ServiceLoader} and for loading by class name; cheap, binds nothing. */
  public PosixPlatformProvider() {}

  @Override
  public int priority() {
    return PRIORITY;
  }

  /**
   * Linux (or macOS with {@value PosixPlatform#EXPERIMENTAL_MACOS}), libc bound by JNA, and
   * POSIX_SPAWN_SETSID accepted.
   */
  @Override
  public boolean isSupported() {
    try {
      return PosixPlatform.isUsable();
    } catch (Throwable t) { // e.g. NoClassDefFoundError when JNA is missing: simply unsupported
      return false;
    }
  }

  @Override
  public String unsupportedReason() {
    try {
      return PosixPlatform.unusableReason().orElse("lifecycle-posix is supported");
    } catch (Throwable t) { // JNA missing from the class path
      return "lifecycle-posix cannot load: " + t;
    }
  }

  @Override
  public ProcessPlatform create() {
    return PosixPlatform.create();
  }
}
