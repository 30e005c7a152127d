package dev.lifecycle.posix;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import java.nio.charset.Charset;
import java.util.Arrays;

/**
 * The POSIX part of libc that Linux (glibc, musl) and macOS share, bound by JNA direct mapping (the
 * cheapest JNA call path, used by the hot {@code kill}/{@code getpgid} probes). Calls that report
 * failure with -1 leave errno in {@link Native#getLastError()}; the {@code posix_spawn*} family
 * returns the error number instead. Only non-variadic functions are bound: variadic calls such as
 * {@code open} or {@code fcntl} pass arguments differently on Apple arm64.
 */
final class LibC {
  static {
    // before JNA's first class initialises
    JnaSearchPath.presetUnlessSet();
    JnaBootLibrary.presetUnlessSet();
  }

  static final NativeLibrary LIBRARY = NativeLibrary.getInstance(Platform.C_LIBRARY_NAME);

  static {
    Native.register(LibC.class, LIBRARY);
  }

  private LibC() {}

  static native int getpid();

  static native int getpgid(int pid);

  static native int getsid(int pid);

  static native int kill(int pid, int sig);

  static native int killpg(int pgrp, int sig);

  static native int close(int fd);

  static native int pipe(int[] fds);

  static native int waitid(int idtype, int id, Pointer siginfo, int options);

  static native String strerror(int errnum);

  static native int posix_spawn(
      int[] pid, byte[] path, Pointer fileActions, Pointer attr, Pointer argv, Pointer envp);

  static native int posix_spawn_file_actions_init(Pointer actions);

  static native int posix_spawn_file_actions_destroy(Pointer actions);

  static native int posix_spawn_file_actions_adddup2(Pointer actions, int fd, int newFd);

  static native int posix_spawn_file_actions_addopen(
      Pointer actions, int fd, byte[] path, int flags, int mode);

  static native int posix_spawn_file_actions_addclose(Pointer actions, int fd);

  static native int posix_spawnattr_init(Pointer attr);

  static native int posix_spawnattr_destroy(Pointer attr);

  static native int posix_spawnattr_setflags(Pointer attr, short flags);

  static native int posix_spawnattr_setsigmask(Pointer attr, Pointer mask);

  static native int posix_spawnattr_setsigdefault(Pointer attr, Pointer signals);

  static native int sigemptyset(Pointer set);

  static native int sigfillset(Pointer set);

  static native int sigdelset(Pointer set, int signo);

  /**
   * The charset the JDK itself uses for file names, arguments and environment ({@code
   * sun.jnu.encoding}), so a command means the same here as with {@link ProcessBuilder}.
   */
  static final Charset JNU = jnuCharset();

  /** A NUL-terminated C string in {@link #JNU}. */
  static byte[] cString(String text) {
    byte[] bytes = text.getBytes(JNU);
    return Arrays.copyOf(bytes, bytes.length + 1);
  }

  private static Charset jnuCharset() {
    try {
      return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
    } catch (IllegalArgumentException e) {
      return Charset.defaultCharset();
    }
  }

  /** errno of the last failed call on this thread. */
  static int errno() {
    return Native.getLastError();
  }

  /** "error=N, text", the JDK's wording for failed process starts. */
  static String describe(int errno) {
    return "error=" + errno + ", " + strerror(errno);
  }
}
