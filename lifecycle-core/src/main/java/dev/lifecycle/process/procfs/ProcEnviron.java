package dev.lifecycle.process.procfs;

import dev.lifecycle.process.ProcessPlatform.EnvironmentEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * Process environments from {@code /proc/<pid>/environ}: finding carriers of an entry, classifying
 * one process's area, reading one value. An area reads empty while its process is inside execve;
 * {@code env_end} in the stat line tells that apart from an empty environment. The reads go through
 * a {@code Function<Path, byte[]>} ({@code null} for a file that cannot be read), the seam that
 * lets a test stage an execve finishing between two reads, which no real process can be made to do
 * on demand. Stateless and thread-safe.
 */
final class ProcEnviron {
  /** How long a cookie search waits for a process inside execve to lay out its environment. */
  private static final long EXEC_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private static final long EXEC_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
  private static final long PF_KTHREAD = 0x00200000L; // include/linux/sched.h

  /**
   * {@link ProcFs#readAll} as the seams' reader, a class rather than a method reference: a tree's
   * close may read its first environment, and linking a lambda there costs more than the read.
   */
  static final Function<Path, byte[]> READ_ALL = new ReadAll();

  private ProcEnviron() {}

  /**
   * The pids among {@code pids} whose environment holds {@code name=value}, read by {@code read}.
   */
  static Set<Long> find(
      String name, String value, Iterable<Long> pids, Function<Path, byte[]> read) {
    byte[] needle = (name + "=" + value).getBytes(StandardCharsets.UTF_8);
    Set<Long> found = new HashSet<>();
    for (long pid : pids) {
      byte[] environ = laidOutEnvironment(pid, read);
      if (environ != null && containsEntry(environ, needle)) {
        found.add(pid);
      }
    }
    return found;
  }

  /**
   * The environment area of {@code pid} once the kernel has laid it out. An area that reads empty
   * while the process is inside execve ({@code env_end} 0, not a kernel thread) is read again after
   * short pauses, for at most {@link #EXEC_WAIT_NANOS}; an empty read is believed only after {@code
   * env_end} was seen set. Null when unreadable or gone, or still inside execve after the wait.
   */
  private static byte[] laidOutEnvironment(long pid, Function<Path, byte[]> read) {
    Path file = Path.of("/proc/" + pid + "/environ");
    byte[] environ = read.apply(file);
    long deadline = System.nanoTime() + EXEC_WAIT_NANOS;
    while (environ != null && environ.length == 0) {
      byte[] stat = read.apply(Path.of("/proc/" + pid + "/stat"));
      if (stat == null || isKernelThread(stat)) {
        return environ;
      }
      if (!envEndIsZero(stat)) {
        return read.apply(file); // laid out by now, perhaps just after the empty read
      }
      if (System.nanoTime() - deadline >= 0) {
        return null;
      }
      LockSupport.parkNanos(EXEC_PAUSE_NANOS);
      environ = read.apply(file);
    }
    return environ;
  }

  /** {@link ProcFs#environmentEntry(long, String, String)} over {@code read}. */
  static EnvironmentEntry entry(long pid, String name, String value, Function<Path, byte[]> read) {
    Path file = Path.of("/proc/" + pid + "/environ");
    byte[] environ = read.apply(file);
    if (environ == null) {
      return EnvironmentEntry.UNREADABLE;
    }
    if (environ.length == 0) {
      if (envEndIsZero(read.apply(Path.of("/proc/" + pid + "/stat")))) {
        return EnvironmentEntry.INSIDE_EXEC;
      }
      // env_end is set now, but the empty read may predate it (an execve that finished between
      // the two reads); only a read after env_end was seen set can call the area empty.
      environ = read.apply(file);
      if (environ == null) {
        return EnvironmentEntry.UNREADABLE;
      }
      if (environ.length == 0) {
        return EnvironmentEntry.EMPTY;
      }
    }
    byte[] needle = (name + "=" + value).getBytes(StandardCharsets.UTF_8);
    if (containsEntry(environ, needle)) {
      return EnvironmentEntry.PRESENT;
    }
    int start = 0;
    int entries = 0;
    for (int i = 0; i <= environ.length; i++) {
      if (i == environ.length || environ[i] == 0) {
        if (i > start) {
          entries++;
          if (indexOf(environ, start, i, (byte) '=') <= start) {
            return EnvironmentEntry.REWRITTEN; // a title word, not NAME=VALUE
          }
        }
        start = i + 1;
      }
    }
    return entries == 0 ? EnvironmentEntry.REWRITTEN : EnvironmentEntry.ABSENT;
  }

  /**
   * Whether a {@code /proc/<pid>/stat} text shows a process between the point of no return of an
   * execve and the moment the kernel has laid out its new environment: {@code env_end} (field 51)
   * is 0, since the kernel sets {@code env_start} first and {@code env_end} last, and {@code
   * /proc/<pid>/environ} reads empty until then. A process whose environment is merely empty
   * ({@code env -i}) has a non-zero {@code env_end}; kernel threads (no memory map) read 0 too (see
   * {@link #isKernelThread}). False for null and for a kernel without the field.
   */
  private static boolean envEndIsZero(byte[] stat) {
    return "0".equals(statField(stat, 51));
  }

  /** Whether the flags (field 9) of a {@code /proc/<pid>/stat} text name a kernel thread. */
  private static boolean isKernelThread(byte[] stat) {
    String flags = statField(stat, 9);
    try {
      return flags != null && (Long.parseLong(flags) & PF_KTHREAD) != 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** Field {@code wanted} of a stat text, numbered as proc(5) does (pid 1, comm 2), or null. */
  private static String statField(byte[] stat, int wanted) {
    if (stat == null) {
      return null;
    }
    int close = -1;
    for (int i = stat.length - 1; i >= 0; i--) {
      if (stat[i] == ')') {
        close = i;
        break;
      }
    }
    if (close < 0) {
      return null;
    }
    int field = 2; // the comm field ends at close
    int i = close + 1;
    while (i < stat.length) {
      while (i < stat.length && stat[i] == ' ') {
        i++;
      }
      int start = i;
      while (i < stat.length && stat[i] != ' ' && stat[i] != '\n') {
        i++;
      }
      if (i == start) {
        break;
      }
      field++;
      if (field == wanted) {
        return new String(stat, start, i - start, StandardCharsets.US_ASCII);
      }
    }
    return null;
  }

  private static int indexOf(byte[] bytes, int from, int to, byte wanted) {
    for (int i = from; i < to; i++) {
      if (bytes[i] == wanted) {
        return i;
      }
    }
    return -1;
  }

  /** {@link ProcFs#environmentValue(long, String)}. */
  static Optional<String> value(long pid, String name) {
    byte[] environ = ProcFs.readAll(Path.of("/proc/" + pid + "/environ"));
    if (environ == null) {
      return Optional.empty();
    }
    byte[] prefix = (name + "=").getBytes(StandardCharsets.UTF_8);
    int start = 0;
    for (int i = 0; i <= environ.length; i++) {
      if (i == environ.length || environ[i] == 0) {
        if (i - start >= prefix.length && regionEquals(environ, start, prefix)) {
          return Optional.of(
              new String(
                  environ,
                  start + prefix.length,
                  i - start - prefix.length,
                  StandardCharsets.UTF_8));
        }
        start = i + 1;
      }
    }
    return Optional.empty();
  }

  private static final class ReadAll implements Function<Path, byte[]> {
    @Override
    public byte[] apply(Path path) {
      return ProcFs.readAll(path);
    }
  }

  private static boolean containsEntry(byte[] environ, byte[] needle) {
    int start = 0;
    for (int i = 0; i <= environ.length; i++) {
      if (i == environ.length || environ[i] == 0) {
        if (i - start == needle.length && regionEquals(environ, start, needle)) {
          return true;
        }
        start = i + 1;
      }
    }
    return false;
  }

  private static boolean regionEquals(byte[] haystack, int offset, byte[] needle) {
    for (int j = 0; j < needle.length; j++) {
      if (haystack[offset + j] != needle[j]) {
        return false;
      }
    }
    return true;
  }
}
