package dev.lifecycle.posix;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.lifecycle.process.ProcessIdentity;
import java.util.Optional;

/**
 * macOS-only entry points of libSystem (libproc and sysctl), UNTESTED: written against the XNU
 * headers ({@code sys/proc_info.h}, {@code sys/sysctl.h}) but never run by this project's CI.
 */
final class DarwinC {
  static {
    Native.register(DarwinC.class, LibC.LIBRARY);
  }

  private static final int PROC_PIDTBSDINFO = 3;
  private static final int BSDINFO_SIZE = 136; // sizeof(struct proc_bsdinfo)
  private static final int PBI_STATUS = 4; // uint32_t pbi_status
  private static final int PBI_START_TVSEC = 120; // uint64_t pbi_start_tvsec
  private static final int PBI_START_TVUSEC = 128; // uint64_t pbi_start_tvusec
  private static final int SZOMB = 5;

  private DarwinC() {}

  static native int proc_pidinfo(int pid, int flavor, long arg, Pointer buffer, int size);

  static native int sysctlbyname(
      String name, Pointer oldValue, long[] oldLength, Pointer newValue, long newLength);

  /** {@code struct proc_bsdinfo} of a process, or empty when it does not exist (or is hidden). */
  static Optional<Memory> bsdInfo(int pid) {
    Memory info = new Memory(BSDINFO_SIZE);
    int read = proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, info, BSDINFO_SIZE);
    return read == BSDINFO_SIZE ? Optional.of(info) : Optional.empty();
  }

  /** Identity: start time in epoch milliseconds (the JDK's unit), boot id from kern.boottime. */
  static Optional<ProcessIdentity> identity(int pid) {
    return bsdInfo(pid)
        .map(
            info ->
                new ProcessIdentity(
                    pid,
                    DarwinTime.startMillis(
                        info.getLong(PBI_START_TVSEC), info.getLong(PBI_START_TVUSEC)),
                    bootId()));
  }

  static boolean isZombie(int pid) {
    return bsdInfo(pid).map(info -> info.getInt(PBI_STATUS) == SZOMB).orElse(false);
  }

  /** kern.boottime (a struct timeval) as text: distinct per boot, stable within one. */
  static String bootId() {
    Memory timeval = new Memory(16);
    long[] length = {16};
    if (sysctlbyname("kern.boottime", timeval, length, null, 0) != 0) {
      return "";
    }
    return DarwinTime.bootId(timeval.getLong(0), timeval.getInt(8));
  }
}
