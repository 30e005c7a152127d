package dev.lifecycle.posix;

import com.sun.jna.Native;

/**
 * Linux {@code eventfd(2)} (direct mapping): a counter fd that polls readable once written, used to
 * wake a thread blocked in {@code epoll_wait}.
 */
final class EventFd {
  static {
    Native.register(EventFd.class, LibC.LIBRARY);
  }

  static final int EFD_CLOEXEC = 0x80000;
  static final int EFD_NONBLOCK = 0x800;

  private EventFd() {}

  static native int eventfd(int initval, int flags);

  static native long write(int fd, long[] value, long count);

  static native long read(int fd, long[] value, long count);

  /** Adds one to the counter: the fd polls readable until {@link #drain(int)}. */
  static void signal(int fd) {
    write(fd, new long[] {1}, 8);
  }

  /** Resets the counter (non-blocking fd: a second drain just fails with EAGAIN). */
  static void drain(int fd) {
    read(fd, new long[1], 8);
  }
}
