package dev.lifecycle.process.cgroup;

import java.util.List;

/**
 * The pid list of {@code cgroup.procs}: one decimal pid per line. Public for the sampler's reads
 * from descriptors it keeps open ({@code tree.CgroupFiles}); {@link Cgroup} parses with it too.
 * Stateless and thread-safe.
 */
public final class PidList {
  private PidList() {}

  /**
   * Appends the pids in {@code text[0, length)} to {@code out}, in the kernel's order.
   *
   * @param text the bytes read from a {@code cgroup.procs}
   * @param length how many of them were read
   * @param out where the pids go
   */
  public static void parse(byte[] text, int length, List<Long> out) {
    long value = 0;
    boolean digits = false;
    for (int i = 0; i < length; i++) {
      byte b = text[i];
      if (b >= '0' && b <= '9') {
        value = value * 10 + (b - '0');
        digits = true;
      } else {
        if (digits) {
          out.add(value);
        }
        value = 0;
        digits = false;
      }
    }
    if (digits) {
      out.add(value);
    }
  }
}
