package dev.lifecycle.posix;

import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * Linux-only libc entry points (direct mapping; registered only on Linux, where they exist). The
 * pidfd calls go through {@code syscall(2)}: glibc wraps them only since 2.36. {@code syscall} is
 * variadic, but glibc implements it in assembly that reads integer registers only, which is the
 * same for a fixed-arity call on x86_64 and aarch64.
 */
final class LinuxC {
  static {
    Native.register(LinuxC.class, LibC.LIBRARY);
  }

  /** Same number on x86_64 and aarch64 (the unified syscall table since Linux 5.1). */
  private static final long SYS_PIDFD_SEND_SIGNAL = 424;

  private static final long SYS_PIDFD_OPEN = 434;

  static final int O_CLOEXEC = 0x80000;
  static final int EPOLL_CLOEXEC = O_CLOEXEC;
  static final int EPOLL_CTL_ADD = 1;
  static final int EPOLL_CTL_DEL = 2;
  static final int EPOLLIN = 0x1;

  private LinuxC() {}

  static native int pipe2(int[] fds, int flags);

  static native long syscall(long number, long a1, long a2, long a3, long a4);

  static native int epoll_create1(int flags);

  static native int epoll_ctl(int epfd, int op, int fd, Pointer event);

  static native int poll(int[] fds, long nfds, int timeoutMillis);

  static native int epoll_wait(int epfd, Pointer events, int maxEvents, int timeoutMillis);

  /** A pidfd (O_CLOEXEC by definition) for {@code pid}, or -1 with errno set. */
  static int pidfdOpen(int pid) {
    return (int) syscall(SYS_PIDFD_OPEN, pid, 0, 0, 0);
  }

  /** 0, or -1 with errno set (ESRCH once the process has been reaped). */
  static int pidfdSendSignal(int pidfd, int sig) {
    return (int) syscall(SYS_PIDFD_SEND_SIGNAL, pidfd, sig, 0, 0);
  }
}
