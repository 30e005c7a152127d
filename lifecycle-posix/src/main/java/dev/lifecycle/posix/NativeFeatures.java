package dev.lifecycle.posix;

import com.sun.jna.Memory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What this machine's kernel and libc offer, probed once: optional symbols by lookup, the spawn
 * flags by a trial {@code posix_spawnattr_setflags}, pidfd support by a trial {@code
 * pidfd_open(getpid())} plus {@code waitid(P_PIDFD)}.
 *
 * @param addclosefrom whether {@link OptionalLibC.CloseFrom} is bound (glibc >= 2.34)
 * @param addchdir whether {@link OptionalLibC.Chdir} is bound (glibc >= 2.29, macOS 10.15)
 * @param addinherit whether {@link OptionalLibC.Inherit} is bound (macOS)
 */
record NativeFeatures(
    OsConstants os,
    String kernel,
    String libc,
    boolean spawnSetsid,
    boolean addclosefrom,
    boolean addchdir,
    boolean addinherit,
    boolean pidfd) {

  static NativeFeatures detect(OsConstants os) {
    return new NativeFeatures(
        os,
        readKernel(),
        readLibc(),
        acceptsSpawnFlags((short) (os.spawnSetsid | os.spawnCloexecDefault)),
        OptionalLibC.bind(OptionalLibC.CloseFrom.class),
        OptionalLibC.bind(OptionalLibC.Chdir.class),
        !os.isLinux() && OptionalLibC.bind(OptionalLibC.Inherit.class),
        os.isLinux() && pidfdWorks(os));
  }

  Map<String, String> details() {
    Map<String, String> details = new LinkedHashMap<>();
    details.put("os", os.name + " " + System.getProperty("os.arch"));
    details.put("kernel", kernel);
    details.put("libc", libc);
    details.put("spawn.setsid", Boolean.toString(spawnSetsid));
    details.put(
        "spawn.closeFds",
        addclosefrom
            ? "addclosefrom_np"
            : os.spawnCloexecDefault != 0 ? "POSIX_SPAWN_CLOEXEC_DEFAULT" : "addclose per open fd");
    details.put("spawn.chdir", addchdir ? "addchdir_np" : "unsupported");
    details.put("pidfd", Boolean.toString(pidfd));
    details.put("exitWatch", pidfd ? "pidfd+epoll, one thread" : "waitid, one thread per child");
    return details;
  }

  private static String readKernel() {
    try {
      return Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
    } catch (IOException | RuntimeException e) {
      return System.getProperty("os.version");
    }
  }

  private static String readLibc() {
    return OptionalLibC.bind(OptionalLibC.GlibcVersion.class)
        ? "glibc " + OptionalLibC.GlibcVersion.gnu_get_libc_version()
        : "unknown (not glibc)";
  }

  /** glibc and musl reject unknown flags with EINVAL, so this tells whether SETSID exists. */
  private static boolean acceptsSpawnFlags(short flags) {
    Memory attr = new Memory(512);
    if (LibC.posix_spawnattr_init(attr) != 0) {
      return false;
    }
    try {
      return LibC.posix_spawnattr_setflags(attr, flags) == 0;
    } finally {
      LibC.posix_spawnattr_destroy(attr);
    }
  }

  /** pidfd_open (5.3) and waitid(P_PIDFD) (5.4), neither blocked by seccomp. */
  private static boolean pidfdWorks(OsConstants os) {
    int fd = LinuxC.pidfdOpen(LibC.getpid());
    if (fd < 0) {
      return false;
    }
    try {
      Memory info = new Memory(OsConstants.SIGINFO_SIZE);
      int rc =
          LibC.waitid(OsConstants.P_PIDFD, fd, info, OsConstants.WEXITED | OsConstants.WNOHANG);
      // We are not our own child: a kernel that knows P_PIDFD answers ECHILD, an older one EINVAL.
      return rc != 0 && LibC.errno() == OsConstants.ECHILD;
    } finally {
      LibC.close(fd);
    }
  }
}
