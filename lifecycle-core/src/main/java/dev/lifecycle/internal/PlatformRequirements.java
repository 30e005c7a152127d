package dev.lifecycle.internal;

import java.nio.file.FileSystems;

/**
 * Checks, at the entry points that cannot work without them, for what only POSIX systems offer, so
 * that such a call fails with one clear error instead of an exception from deep inside the JDK (on
 * Windows, {@code PosixFilePermissions} throws a bare {@link UnsupportedOperationException}).
 * Stateless and thread-safe.
 */
public final class PlatformRequirements {
  private PlatformRequirements() {}

  /**
   * Throws unless this JVM runs on a POSIX system (one whose default file system supports POSIX
   * permissions: Linux, macOS).
   *
   * @param feature what the caller is, for the message (e.g. {@code "RecordStore"})
   * @throws UnsupportedOperationException naming the feature, the operating system and why
   */
  public static void requirePosix(String feature) {
    if (!isPosix()) {
      throw new UnsupportedOperationException(
          "lifecycle "
              + feature
              + " needs a POSIX system (Linux; macOS experimental): it relies on POSIX file"
              + " permissions, process groups and a POSIX shell, which "
              + System.getProperty("os.name")
              + " does not offer. On this system only the pure-JDK process platform"
              + " (ProcessPlatform.jdk(): spawn, probe, TERM/KILL, the process table) is"
              + " available, and it is untested here.");
    }
  }

  /**
   * Whether the default file system supports POSIX permissions.
   *
   * @return {@code true} where the default file system offers the {@code posix} attribute view
   *     (Linux, macOS; not Windows)
   */
  public static boolean isPosix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }
}
