package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.procfs.ProcFs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Closes the window between a leader's exec and its move into the tree's cgroup: a process the
 * leader forked in it was born outside the cgroup. Every such process has a pid allocated after the
 * leader's, and the kernel says which pid it allocated last ({@code /proc/sys/kernel/ns_last_pid}):
 * so only the pids in between are looked at (none, usually; a few on a busy machine), never the
 * whole process table. A process there that descends from the leader, or shares its group or
 * session, is moved into the cgroup; one whose origin cannot be told (re-parented to init, in
 * another session) is kept as unattributed so the report can say so. Repeated until no new pid
 * shows up, a bounded number of times. Not thread-safe; used once per spawn.
 */
final class EntryWindow {
  private static final Path LAST_PID = Path.of("/proc/sys/kernel/ns_last_pid");
  private static final Path PID_MAX = Path.of("/proc/sys/kernel/pid_max");
  private static final int MAX_ROUNDS = 5;
  private static final int MAX_RANGE = 4096;
  private static final int FIRST_PID_AFTER_WRAP = 300; // the kernel's RESERVED_PIDS

  /** What the check found. */
  record Result(int moved, List<ProcessIdentity> unattributed, String problem) {
    static Result unchecked(String why) {
      return new Result(0, List.of(), why);
    }
  }

  private EntryWindow() {}

  static boolean isAvailable() {
    return ProcFs.isAvailable() && Files.isReadable(LAST_PID);
  }

  /** Finds and moves the window's forks of {@code leader} into {@code cgroup}. */
  static Result close(Cgroup cgroup, ProcessInfo leader, String cookie) {
    long pidMax = readLong(PID_MAX).orElse(32768L);
    String boot = ProcFs.bootId();
    Set<Long> ours = new HashSet<>();
    ours.add(leader.pid());
    List<ProcessIdentity> unattributed = new ArrayList<>();
    int moved = 0;
    long from = leader.pid();
    for (int round = 0; round < MAX_ROUNDS; round++) {
      Optional<Long> last = readLong(LAST_PID);
      if (last.isEmpty()) {
        return Result.unchecked("cannot read " + LAST_PID);
      }
      long to = last.get();
      if (to == from) {
        return new Result(moved, unattributed, "");
      }
      List<Long> range = range(from, to, pidMax);
      if (range.size() > MAX_RANGE) {
        return new Result(
            moved, unattributed, range.size() + " pids allocated during the cgroup entry");
      }
      int movedBefore = moved;
      for (long pid : range) {
        ProcessInfo row = ProcFs.stat(pid).orElse(null);
        if (row == null || row.startTime() < leader.startTime()) {
          continue; // gone (its children, if any, are later in the range) or older than the leader
        }
        boolean descends =
            ours.contains(row.ppid())
                || (leader.pgid() > 0 && row.pgid() == leader.pgid())
                || (leader.sid() > 0 && row.sid() == leader.sid());
        if (descends) {
          ours.add(pid);
          if (!inCgroup(cgroup, pid) && !row.hasExited()) {
            try {
              cgroup.enter(pid);
              moved++;
            } catch (IOException e) {
              // gone meanwhile (ESRCH) or not movable: it is then unattributed
              if (ProcFs.stat(pid).filter(r -> !r.hasExited()).isPresent()) {
                unattributed.add(row.identity(boot));
              }
            }
          }
        } else if (row.ppid() == 1 && !row.hasExited() && !inCgroup(cgroup, pid)) {
          // Re-parented to init within microseconds: its parent may have been ours. Its
          // environment decides: our cookie (ours: moved), an intact environment without it (not
          // ours: a busy machine allocates pids to others too), anything else (unattributed).
          switch (ProcFs.environmentEntry(pid, SpawnOptions.COOKIE_VARIABLE, cookie)) {
            case PRESENT -> {
              ours.add(pid);
              try {
                cgroup.enter(pid);
                moved++;
              } catch (IOException e) {
                if (ProcFs.stat(pid).filter(r -> !r.hasExited()).isPresent()) {
                  unattributed.add(row.identity(boot));
                }
              }
            }
            case ABSENT -> {}
            default -> {
              if (ProcFs.stat(pid).filter(r -> !r.hasExited()).isPresent()) {
                unattributed.add(row.identity(boot));
              }
            }
          }
        }
      }
      from = to;
      if (moved == movedBefore && round > 0) {
        return new Result(moved, unattributed, "");
      }
    }
    return new Result(moved, unattributed, "");
  }

  /** The pids allocated after {@code from} up to {@code to}, allocation order (wraps at max). */
  static List<Long> range(long from, long to, long pidMax) {
    List<Long> out = new ArrayList<>();
    if (to > from) {
      for (long p = from + 1; p <= to && out.size() <= MAX_RANGE; p++) {
        out.add(p);
      }
    } else {
      for (long p = from + 1; p < pidMax && out.size() <= MAX_RANGE; p++) {
        out.add(p);
      }
      for (long p = FIRST_PID_AFTER_WRAP; p <= to && out.size() <= MAX_RANGE; p++) {
        out.add(p);
      }
    }
    return out;
  }

  private static boolean inCgroup(Cgroup cgroup, long pid) {
    try {
      String prefix = "0::" + cgroup.relativePath();
      for (String line :
          Files.readAllLines(Path.of("/proc/" + pid + "/cgroup"), StandardCharsets.US_ASCII)) {
        if (line.equals(prefix) || line.startsWith(prefix + "/")) {
          return true;
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }

  /**
   * One read(2) of a sysctl file: it answers only a read at offset 0, so the JDK's readAllBytes
   * (which reads the first byte alone when the size is 0) would see "2" for "23423".
   */
  private static Optional<Long> readLong(Path path) {
    byte[] buffer = new byte[32];
    try (var in = Files.newInputStream(path)) {
      int n = in.read(buffer);
      if (n <= 0) {
        return Optional.empty();
      }
      return Optional.of(
          Long.parseLong(new String(buffer, 0, n, StandardCharsets.US_ASCII).trim()));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }
}
