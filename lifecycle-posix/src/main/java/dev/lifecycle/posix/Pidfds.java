package dev.lifecycle.posix;

import java.nio.ByteOrder;

/** Exit checks through pidfds (Linux >= 5.3): a pidfd polls readable once its process exited. */
final class Pidfds {
  private static final int POLLIN = 0x1;
  // struct pollfd { int fd; short events; short revents; } as two ints: the shorts share the
  // second, in the machine's byte order. An int[] is passed by copy (no Memory, no JNI accessors).
  private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
  private static final int EVENTS_SHIFT = LITTLE ? 0 : 16;
  private static final int REVENTS_SHIFT = LITTLE ? 16 : 0;

  private Pidfds() {}

  /**
   * Whether the process behind {@code pidfd} has exited (zombies included).
   *
   * @return 1 exited, 0 running, -1 when poll failed (the caller falls back to /proc)
   */
  static int exited(int pidfd) {
    int[] fds = {pidfd, POLLIN << EVENTS_SHIFT};
    if (LinuxC.poll(fds, 1, 0) < 0) {
      return -1;
    }
    return ((fds[1] >>> REVENTS_SHIFT) & POLLIN) != 0 ? 1 : 0;
  }
}
