package dev.lifecycle.posix;

import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * Optional libc functions (GNU and Apple extensions) bound by direct mapping, each in a class of
 * its own: JNA registers a class's natives all or nothing, so a libc without one of them (musl, an
 * older glibc) loses only that one. Direct mapping keeps JNA's generic, reflective call path (and
 * the classes it loads at a CLI's first spawn) out of every spawn.
 */
final class OptionalLibC {
  private OptionalLibC() {}

  /**
   * Binds the natives of {@code functions}.
   *
   * @return whether every one of them exists in this libc
   */
  static boolean bind(Class<?> functions) {
    try {
      Native.register(functions, LibC.LIBRARY);
      return true;
    } catch (UnsatisfiedLinkError | IllegalArgumentException absent) {
      return false;
    }
  }

  /** {@code posix_spawn_file_actions_addclosefrom_np} (glibc >= 2.34). */
  static final class CloseFrom {
    private CloseFrom() {}

    static native int posix_spawn_file_actions_addclosefrom_np(Pointer actions, int lowFd);
  }

  /** {@code posix_spawn_file_actions_addchdir_np} (glibc >= 2.29, macOS 10.15). */
  static final class Chdir {
    private Chdir() {}

    static native int posix_spawn_file_actions_addchdir_np(Pointer actions, byte[] path);
  }

  /** {@code posix_spawn_file_actions_addinherit_np} (macOS). */
  static final class Inherit {
    private Inherit() {}

    static native int posix_spawn_file_actions_addinherit_np(Pointer actions, int fd);
  }

  /** {@code gnu_get_libc_version} (glibc). */
  static final class GlibcVersion {
    private GlibcVersion() {}

    static native String gnu_get_libc_version();
  }
}
