package dev.lifecycle.posix;

import com.sun.jna.Pointer;
import dev.lifecycle.process.Signal;

/**
 * The numbers that differ between Linux and macOS (signals, flags, {@code siginfo_t} layout), as
 * one immutable value per OS. The Linux values hold for x86_64 and aarch64 alike; the macOS values
 * come from the XNU headers and are untested here.
 */
final class OsConstants {
  static final int EPERM = 1;
  static final int ENOENT = 2;
  static final int ESRCH = 3;
  static final int EINTR = 4;
  static final int ECHILD = 10;
  static final int EACCES = 13;

  static final int P_PID = 1;
  static final int P_PIDFD = 3; // Linux >= 5.4
  static final int WNOHANG = 1;
  static final int WEXITED = 4;
  static final int O_RDONLY = 0;
  static final int O_WRONLY = 1;
  static final short POSIX_SPAWN_SETSIGDEF = 0x04;
  static final short POSIX_SPAWN_SETSIGMASK = 0x08;
  static final int SIGINFO_SIZE = 128;

  private static final int CLD_EXITED = 1;
  private static final int SI_CODE = 8;

  static final OsConstants LINUX =
      new OsConstants(
          "linux",
          (short) 0x80,
          (short) 0,
          0x01000000,
          0x40,
          0x200,
          0x400,
          38,
          16,
          24,
          new int[] {1, 2, 3, 9, 10, 12, 15, 18, 19});
  static final OsConstants DARWIN =
      new OsConstants(
          "macos",
          (short) 0x400,
          (short) 0x4000,
          0x20,
          0x200,
          0x400,
          0x8,
          78,
          12,
          20,
          new int[] {1, 2, 3, 9, 30, 31, 15, 19, 17});

  final String name;
  final short spawnSetsid;

  /** POSIX_SPAWN_CLOEXEC_DEFAULT (macOS); 0 where it does not exist. */
  final short spawnCloexecDefault;

  final int waitNoWait;
  final int openCreate;
  final int openTruncate;
  final int openAppend;
  final int enosys;
  private final int siPid;
  private final int siStatus;
  private final int[] signals; // indexed by Signal.ordinal()

  private OsConstants(
      String name,
      short spawnSetsid,
      short spawnCloexecDefault,
      int waitNoWait,
      int openCreate,
      int openTruncate,
      int openAppend,
      int enosys,
      int siPid,
      int siStatus,
      int[] signals) {
    this.name = name;
    this.spawnSetsid = spawnSetsid;
    this.spawnCloexecDefault = spawnCloexecDefault;
    this.waitNoWait = waitNoWait;
    this.openCreate = openCreate;
    this.openTruncate = openTruncate;
    this.openAppend = openAppend;
    this.enosys = enosys;
    this.siPid = siPid;
    this.siStatus = siStatus;
    this.signals = signals;
  }

  /** The constants of the OS we run on, or {@code null} when it is neither Linux nor macOS. */
  static OsConstants current() {
    if (com.sun.jna.Platform.isLinux()) {
      return LINUX;
    }
    return com.sun.jna.Platform.isMac() ? DARWIN : null;
  }

  boolean isLinux() {
    return this == LINUX;
  }

  int signal(Signal signal) {
    return signals[signal.ordinal()];
  }

  /** The pid a waitid call filled in; 0 when WNOHANG found nothing. */
  int waitedPid(Pointer siginfo) {
    return siginfo.getInt(siPid);
  }

  /** The JDK's encoding of a wait status: the exit code, or 128 + the signal that ended it. */
  int exitValue(Pointer siginfo) {
    int status = siginfo.getInt(siStatus);
    return siginfo.getInt(SI_CODE) == CLD_EXITED ? status : 128 + status;
  }
}
