package dev.lifecycle.process.procfs;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessPlatform.EnvironmentEntry;
import dev.lifecycle.process.ProcessState;
import dev.lifecycle.process.ProcessTable;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Linux {@code /proc}, read with plain JDK file I/O: identities, states, CPU time and the process
 * table. Shared by the JNA platform and the pure-JDK fallback, so both produce identical
 * identities; environments are read by {@code ProcEnviron}. Every method tolerates processes
 * vanishing mid-read (they are skipped or reported as absent, never as errors). Stateless and
 * thread-safe.
 */
public final class ProcFs {
  private static final Path PROC = Path.of("/proc");
  private static final File PROC_DIR = new File("/proc");

  /**
   * USER_HZ, the unit of the tick counts in {@code /proc/<pid>/stat}. The kernel ABI fixes it at
   * 100 on every Linux architecture the JVM runs on, independent of the kernel's CONFIG_HZ.
   */
  public static final long TICKS_PER_SECOND = 100;

  /**
   * The {@link dev.lifecycle.process.ProcessPlatform#identityClock() identity clock} of identities
   * read here: clock ticks since boot, within the boot named by {@link #bootId()}.
   */
  public static final String CLOCK = ProcessPlatform.LINUX_PROC_CLOCK;

  private static final int STAT_BUFFER = 1024;

  private ProcFs() {}

  /**
   * Whether {@code /proc} is a Linux procfs we can read.
   *
   * @return {@code true} if {@code /proc/self/stat} is readable; decided once per JVM
   */
  public static boolean isAvailable() {
    return Holder.AVAILABLE;
  }

  /**
   * The id of the current boot ({@code /proc/sys/kernel/random/boot_id}), {@code ""} if absent.
   *
   * @return the boot id, read once per JVM
   */
  public static String bootId() {
    return Holder.BOOT_ID;
  }

  private static final class Holder {
    static final boolean AVAILABLE = Files.isReadable(PROC.resolve("self/stat"));
    static final String BOOT_ID = readBootId();

    private static String readBootId() {
      try {
        return Files.readString(PROC.resolve("sys/kernel/random/boot_id")).trim();
      } catch (IOException | RuntimeException e) {
        return "";
      }
    }
  }

  /**
   * The identity of the process at {@code pid}, zombies included.
   *
   * @param pid the process id, positive
   * @return pid, start time and boot id, or empty when there is no such process
   * @throws IllegalArgumentException if {@code pid} is not positive
   */
  public static Optional<ProcessIdentity> identity(long pid) {
    Optional<ProcessInfo> row = stat(pid); // no lambda: a tree's close may be its first use
    return row.isPresent() ? Optional.of(row.get().identity(bootId())) : Optional.empty();
  }

  /**
   * One process's row, or empty when there is no such process.
   *
   * @param pid the process id, positive
   * @return the row read from {@code /proc/<pid>/stat}
   * @throws IllegalArgumentException if {@code pid} is not positive
   */
  public static Optional<ProcessInfo> stat(long pid) {
    if (pid <= 0) {
      throw new IllegalArgumentException("pid must be positive: " + pid);
    }
    return Optional.ofNullable(readStat(pid, STAT_BYTES.get()));
  }

  // One stat buffer per thread: stat() is on the probe path, a fresh 1 KiB per call showed up.
  private static final ThreadLocal<byte[]> STAT_BYTES = new StatBuffer();

  /** A class rather than a lambda: a client's first read of {@code /proc} would link one. */
  private static final class StatBuffer extends ThreadLocal<byte[]> {
    @Override
    protected byte[] initialValue() {
      return new byte[STAT_BUFFER];
    }
  }

  /**
   * The whole process table in one pass over {@code /proc}.
   *
   * @return the rows of every process that could be read
   */
  public static ProcessTable snapshot() {
    long started = System.nanoTime();
    byte[] buffer = STAT_BYTES.get();
    List<ProcessInfo> rows = new ArrayList<>(512);
    for (long pid : pids()) {
      ProcessInfo row = readStat(pid, buffer);
      if (row != null) {
        rows.add(row);
      }
    }
    return ProcessTable.of(rows, bootId(), started);
  }

  /**
   * Every numeric entry of {@code /proc}: the pids that existed while the directory was read.
   *
   * @return the pids in directory order
   * @throws IllegalStateException if {@code /proc} cannot be listed
   */
  public static List<Long> pids() {
    String[] names = PROC_DIR.list(); // plain names: no Path per entry
    if (names == null) {
      throw new IllegalStateException("cannot list /proc");
    }
    List<Long> pids = new ArrayList<>(names.length);
    for (String name : names) {
      long pid = parsePid(name);
      if (pid > 0) {
        pids.add(pid);
      }
    }
    return pids;
  }

  /**
   * Pids whose environment holds the exact entry {@code name=value}. Unreadable ones are skipped.
   *
   * @param name the variable's name
   * @param value its exact value
   * @return the pids found
   */
  public static Set<Long> findByEnvironment(String name, String value) {
    return findByEnvironment(name, value, pids());
  }

  /**
   * Like {@link #findByEnvironment(String, String)}, reading only the environments of {@code pids}
   * (callers that know which processes could carry the entry skip the rest).
   *
   * @param name the variable's name
   * @param value its exact value
   * @param pids the only processes to look at
   * @return the pids among {@code pids} whose environment holds the entry
   */
  public static Set<Long> findByEnvironment(String name, String value, Iterable<Long> pids) {
    return ProcEnviron.find(name, value, pids, ProcEnviron.READ_ALL);
  }

  /**
   * Classifies the environment area of {@code pid} for the entry {@code name=value}.
   *
   * @param pid the process id
   * @param name the variable's name
   * @param value its exact value
   * @return whether the entry is there, absent, the area empty, not laid out yet (inside execve;
   *     kernel threads read so too), rewritten, or unreadable
   */
  public static EnvironmentEntry environmentEntry(long pid, String name, String value) {
    return ProcEnviron.entry(pid, name, value, ProcEnviron.READ_ALL);
  }

  /**
   * The value of {@code name} in the environment of {@code pid} ({@code /proc/<pid>/environ}).
   *
   * @param pid the process id
   * @param name the variable's name
   * @return the value, or empty when it is not set, the area is unreadable or the process is gone
   */
  public static Optional<String> environmentValue(long pid, String name) {
    return ProcEnviron.value(pid, name);
  }

  /**
   * The command line of a process ({@code /proc/<pid>/cmdline}); empty for kernel threads.
   *
   * @param pid the process id
   * @return the arguments, or empty when the process is gone or the file unreadable
   */
  public static Optional<List<String>> commandLine(long pid) {
    byte[] raw = readAll(Path.of("/proc/" + pid + "/cmdline"));
    if (raw == null || raw.length == 0) {
      return Optional.empty();
    }
    List<String> args = new ArrayList<>();
    int start = 0;
    for (int i = 0; i <= raw.length; i++) {
      if (i == raw.length || raw[i] == 0) {
        if (i > start || i < raw.length) {
          args.add(new String(raw, start, i - start, StandardCharsets.UTF_8));
        }
        start = i + 1;
      }
    }
    return Optional.of(List.copyOf(args));
  }

  /**
   * Parses one {@code /proc/<pid>/stat} line. The command name may contain spaces and parentheses,
   * so fields are counted from the last {@code ')'}.
   *
   * @return the row, or {@code null} when the text is not a stat line
   */
  static ProcessInfo parseStat(long pid, byte[] text, int length) {
    int open = -1;
    int close = -1;
    for (int i = 0; i < length; i++) {
      if (text[i] == '(' && open < 0) {
        open = i;
      } else if (text[i] == ')') {
        close = i;
      }
    }
    if (open < 0 || close < open || close + 2 >= length) {
      return null;
    }
    String command = new String(text, open + 1, close - open - 1, StandardCharsets.UTF_8);
    // Fields after the command: 3 state, 4 ppid, 5 pgrp, 6 session, 14 utime, 15 stime,
    // 22 starttime, 24 rss in pages (1-based numbering of proc(5)).
    char state = (char) text[close + 2];
    long ppid = 0;
    long pgid = 0;
    long sid = 0;
    long utime = 0;
    long stime = 0;
    long start = -1;
    long rssPages = -1;
    int field = 3;
    int i = close + 3;
    while (i < length && field < 24) {
      while (i < length && text[i] == ' ') {
        i++;
      }
      if (i >= length || text[i] == '\n') {
        break; // the line ended: fields past it are unknown, not zero
      }
      field++;
      long value = 0;
      boolean negative = false;
      if (i < length && text[i] == '-') {
        negative = true;
        i++;
      }
      while (i < length && text[i] >= '0' && text[i] <= '9') {
        value = value * 10 + (text[i] - '0');
        i++;
      }
      while (i < length && text[i] != ' ' && text[i] != '\n') {
        i++;
      }
      value = negative ? -value : value;
      switch (field) {
        case 4 -> ppid = value;
        case 5 -> pgid = value;
        case 6 -> sid = value;
        case 14 -> utime = value;
        case 15 -> stime = value;
        case 22 -> start = value;
        case 24 -> rssPages = value;
        default -> {}
      }
    }
    if (start < 0) {
      return null;
    }
    Duration cpu = Duration.ofMillis((utime + stime) * (1000 / TICKS_PER_SECOND));
    long resident = rssPages < 0 ? -1 : rssPages * PageSize.BYTES;
    return new ProcessInfo(
        pid, ppid, pgid, sid, start, ProcessState.fromCode(state), cpu, command, resident);
  }

  /** The kernel's page size, from the auxiliary vector ({@code AT_PAGESZ}); 4096 if unreadable. */
  static final class PageSize {
    static final long BYTES = read(PROC.resolve("self/auxv"));

    private PageSize() {}

    static long read(Path auxv) {
      try {
        java.nio.ByteBuffer vector =
            java.nio.ByteBuffer.wrap(Files.readAllBytes(auxv))
                .order(java.nio.ByteOrder.nativeOrder());
        while (vector.remaining() >= 16) {
          long type = vector.getLong();
          long value = vector.getLong();
          if (type == 6 && value > 0) { // AT_PAGESZ
            return value;
          }
          if (type == 0) { // AT_NULL ends the vector
            break;
          }
        }
      } catch (IOException | SecurityException e) {
        // fall through to the common size
      }
      return 4096;
    }
  }

  private static ProcessInfo readStat(long pid, byte[] buffer) {
    // One string, no Path: FileInputStream opens it directly (cheaper than Path + FileChannel).
    try (FileInputStream in = new FileInputStream("/proc/" + pid + "/stat")) {
      int length = 0;
      int n;
      while (length < buffer.length && (n = in.read(buffer, length, buffer.length - length)) > 0) {
        length += n; // a stat line is far shorter than the buffer; loop only for short reads
      }
      return parseStat(pid, buffer, length);
    } catch (IOException | SecurityException e) {
      return null; // gone between listing and reading, or never existed
    }
  }

  /** A whole file, or {@code null} when it cannot be read (gone, not permitted). */
  static byte[] readAll(Path path) {
    try {
      return Files.readAllBytes(path);
    } catch (IOException | SecurityException e) {
      return null;
    }
  }

  private static long parsePid(String name) {
    if (name.isEmpty() || name.length() > 10) {
      return -1;
    }
    long value = 0;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
