package dev.lifecycle.bench;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SupervisedProcess;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Scratch experiment for the library owners (Linux only): cheaper ways to tell a live process from
 * a zombie than {@code kill(pid, 0)} followed by reading {@code /proc/<pid>/stat} through NIO, each
 * with its own JNA direct binding (the same call path as lifecycle-posix's {@code LibC}). Probes a
 * live child and, for the zombie path, a zombie child held unreaped by the platform.
 */
public class ProbeAlternativesBenchmark extends AverageTimeBenchmark {
  /** Direct-mapped libc, as in lifecycle-posix. */
  static final class C {
    static {
      Native.register(C.class, NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
    }

    static native int kill(int pid, int sig);

    static native long syscall(long number, long a1, long a2, long a3, long a4);

    static native int poll(int[] fds, long nfds, int timeout);

    static native int close(int fd);

    static native int open(byte[] path, int flags);

    static native long read(int fd, Memory buffer, long count);

    static native long pread(int fd, Memory buffer, long count, long offset);
  }

  private static final long SYS_PIDFD_OPEN = 434;
  private static final int POLLIN = 1;

  private ProcessPlatform posix;
  private SupervisedProcess child;
  private int pid;
  private byte[] statPath;
  private final Memory buffer = new Memory(1024);
  private int heldStatFd;

  @Setup
  public void setup() throws Exception {
    posix = ProcessPlatform.get();
    child = posix.spawn(Trees.quietSleep());
    pid = (int) child.pid();
    statPath = ("/proc/" + pid + "/stat\0").getBytes(StandardCharsets.US_ASCII);
    heldStatFd = C.open(statPath, 0);
    checkZombieIsSeenExited();
  }

  /** The pidfd path must call a zombie exited: an unreaped, exited child of ours. */
  private void checkZombieIsSeenExited() throws Exception {
    SupervisedProcess zombie =
        posix.spawn(
            new ProcessBuilder("/bin/true"),
            dev.lifecycle.process.SpawnOptions.defaults().withKeepLeaderUnreaped(true));
    zombie.onExit().get(10, TimeUnit.SECONDS);
    int z = (int) zombie.pid();
    int fd = (int) C.syscall(SYS_PIDFD_OPEN, z, 0, 0, 0);
    int[] pfd = {fd, POLLIN};
    int ready = fd < 0 ? -1 : C.poll(pfd, 1, 0);
    System.out.println(
        "\n[zombie check] kill(z,0)="
            + C.kill(z, 0)
            + " pidfd_open="
            + fd
            + " poll="
            + ready
            + " revents="
            + (pfd[1] >>> 16)
            + " probe="
            + posix.probe(z));
    if (fd >= 0) {
      C.close(fd);
    }
    zombie.reap();
  }

  @TearDown
  public void tearDown() throws Exception {
    C.close(heldStatFd);
    Trees.killAndVerify(posix, child.processGroupId());
    child.waitFor();
  }

  /** The floor: one JNA direct call to kill(pid, 0); cannot tell a zombie. */
  @Benchmark
  public int killOnly() {
    return C.kill(pid, 0);
  }

  /** The library today: kill(pid, 0), then /proc/<pid>/stat through NIO and a parse. */
  @Benchmark
  public Liveness current() {
    return posix.probe(pid);
  }

  /**
   * pidfd_open (ESRCH when the pid is free), poll(pidfd, 0) (POLLIN once the process has exited,
   * zombie included), close: three syscalls, no /proc text.
   */
  @Benchmark
  public boolean pidfdPoll() {
    int fd = (int) C.syscall(SYS_PIDFD_OPEN, pid, 0, 0, 0);
    if (fd < 0) {
      return false;
    }
    int[] pfd = {fd, POLLIN};
    int ready = C.poll(pfd, 1, 0);
    C.close(fd);
    return ready == 0;
  }

  /** kill(pid, 0), then open/read/close /proc/<pid>/stat by JNA into a reused buffer. */
  @Benchmark
  public boolean killPlusNativeStat() {
    if (C.kill(pid, 0) != 0) {
      return false;
    }
    int fd = C.open(statPath, 0);
    if (fd < 0) {
      return false;
    }
    long n = C.read(fd, buffer, 1024);
    C.close(fd);
    return n > 0 && !zombie(buffer, (int) n);
  }

  /** kill(pid, 0), then pread of a held /proc/<pid>/stat fd (a supervisor could keep one). */
  @Benchmark
  public boolean killPlusHeldStatFd() {
    if (C.kill(pid, 0) != 0) {
      return false;
    }
    long n = C.pread(heldStatFd, buffer, 1024, 0);
    return n > 0 && !zombie(buffer, (int) n);
  }

  private static boolean zombie(Memory text, int length) {
    for (int i = length - 1; i > 0; i--) {
      if (text.getByte(i) == ')') {
        return i + 2 < length && text.getByte(i + 2) == 'Z';
      }
    }
    return false;
  }
}
