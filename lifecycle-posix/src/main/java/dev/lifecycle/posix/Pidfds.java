package dev.lifecycle.posix;

import com.sun.jna.Memory;

/** Exit checks through pidfds (Linux >= 5.3): a pidfd polls readable once its process exited. */
final class Pidfds {
  private static final short POLLIN = 0x1;
  // struct pollfd { int fd; short events; short revents; }, one per thread: no malloc per probe
  private static final ThreadLocal<Memory> POLLFD = ThreadLocal.withInitial(() -> new Memory(8));

  private Pidfds() {}

  /**
   * Whether the process behind {@code pidfd} has exited (zombies included).
   *
   * @return 1 exited, 0 running, -1 when poll failed (the caller falls back to /proc)
   */
  static int exited(int pidfd) {
    Memory fds = POLLFD.get();
    fds.setInt(0, pidfd);
    fds.setShort(4, POLLIN);
    fds.setShort(6, (short) 0);
    if (LinuxC.poll(fds, 1, 0) < 0) {
      return -1;
    }
    return (fds.getShort(6) & POLLIN) != 0 ? 1 : 0;
  }
}
