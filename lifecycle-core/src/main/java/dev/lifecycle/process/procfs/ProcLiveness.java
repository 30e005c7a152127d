package dev.lifecycle.process.procfs;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessState;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.StringTokenizer;

/**
 * Liveness from {@code /proc} alone, with the answers {@code kill(pid, 0)} plus a zombie check
 * would give, so a process that only reads records and probes owners needs no native code.
 * Thread-safe.
 *
 * <ul>
 *   <li>No {@code /proc/<pid>} entry: {@link Liveness#GONE} (the kernel's lookup is the one {@code
 *       kill} does, in the pid namespace the procfs belongs to; {@link #isExact()} checks it is
 *       ours).
 *   <li>State Z with no other thread left (the condition under which a pidfd polls readable), or X:
 *       {@link Liveness#GONE}.
 *   <li>Otherwise the entry proves existence: {@link Liveness#ALIVE} when the kernel's credential
 *       rule for signals ({@code kill_ok_by_cred}: our real or effective uid equals the target's
 *       real or saved uid, or we hold CAP_KILL) allows a signal, else {@link
 *       Liveness#ALIVE_NOT_OURS}, as EPERM would say. A denial by a security module (SELinux,
 *       AppArmor) is not visible here; the signal itself then reports it.
 * </ul>
 *
 * <p>Usable only where {@link #isExact()}: procfs mounted for our pid namespace and without {@code
 * hidepid} (which would hide existing processes). Thread-safe; no state beyond this JVM's own
 * credentials, read once.
 */
public final class ProcLiveness {
  private static final int CAP_KILL = 5;

  private ProcLiveness() {}

  /**
   * Whether {@code /proc} answers liveness exactly here: it is readable, {@code /proc/self} names
   * this JVM (the procfs belongs to our pid namespace), and it is not mounted with {@code hidepid}.
   *
   * @return {@code true} if {@link #probe(long)} answers as a null signal would; decided once per
   *     JVM
   */
  public static boolean isExact() {
    return Self.EXACT;
  }

  /**
   * Whether this JVM holds CAP_KILL, read once from {@code /proc/self/status}: the kernel's
   * credential rule then permits every signal, so a null signal to an existing process cannot fail
   * with EPERM (a security module's denial aside, as in the class comment).
   *
   * @return {@code true} when it holds CAP_KILL; {@code false} also where {@code /proc} cannot tell
   */
  public static boolean holdsKillCapability() {
    return Self.CAN_KILL_ANY;
  }

  /**
   * Like {@code kill(pid, 0)} plus a zombie check; see the class comment.
   *
   * @param pid the process id, positive
   * @return GONE, ALIVE or ALIVE_NOT_OURS
   * @throws IllegalArgumentException if {@code pid} is not positive
   */
  public static Liveness probe(long pid) {
    if (pid <= 0) {
      throw new IllegalArgumentException("pid must be positive: " + pid);
    }
    Optional<ProcessInfo> info = ProcFs.stat(pid);
    if (info.isEmpty() || hasExited(pid, info.get())) {
      return Liveness.GONE;
    }
    return permitted(pid);
  }

  /**
   * Like {@link #probe(long)}, and {@link Liveness#ALIVE_NOT_OURS} when the pid now names a
   * different process (start time or boot differ); an unknown part never reads as different.
   *
   * @param identity the recorded pid, start time and boot id
   * @return GONE, ALIVE, or ALIVE_NOT_OURS (not permitted, or another process)
   */
  public static Liveness probe(ProcessIdentity identity) {
    Optional<ProcessInfo> info = ProcFs.stat(identity.pid());
    if (info.isEmpty() || hasExited(identity.pid(), info.get())) {
      return Liveness.GONE;
    }
    if (identity.match(info.get().identity(ProcFs.bootId())) == ProcessIdentity.Match.DIFFERENT) {
      return Liveness.ALIVE_NOT_OURS;
    }
    return permitted(identity.pid());
  }

  /**
   * A zombie leader still has a thread group while other threads run: exited only when alone. No
   * switch on the enum: its synthetic class would load only here, on a live pid, which a CLI's
   * class-data archive trained on a cold call (no live broker yet) lacks.
   */
  private static boolean hasExited(long pid, ProcessInfo info) {
    ProcessState state = info.state();
    if (state == ProcessState.DEAD) {
      return true;
    }
    if (state != ProcessState.ZOMBIE) {
      return false;
    }
    Optional<Status> status = status(pid);
    return status.isEmpty() || status.get().threads() <= 1;
  }

  private static Liveness permitted(long pid) {
    if (Self.CAN_KILL_ANY) {
      return Liveness.ALIVE;
    }
    Optional<Status> target = status(pid);
    if (target.isEmpty()) {
      return Liveness.GONE; // the stat entry was there a moment ago: it has been reaped since
    }
    return mayKill(Self.UIDS, target.get().uids()) ? Liveness.ALIVE : Liveness.ALIVE_NOT_OURS;
  }

  /**
   * The kernel's {@code kill_ok_by_cred} without the capability part; uids as (real, eff, saved).
   */
  static boolean mayKill(long[] sender, long[] target) {
    return sender[1] == target[2]
        || sender[1] == target[0]
        || sender[0] == target[2]
        || sender[0] == target[0];
  }

  /**
   * What the probe needs from {@code /proc/<pid>/status}; {@code pidNamespaces} counts the NSpid
   * entries (0 on kernels before 4.1, which lack the line).
   */
  record Status(long[] uids, int threads, long capEff, int pidNamespaces) {}

  static Optional<Status> status(long pid) {
    return readStatus("/proc/" + pid + "/status");
  }

  private static Optional<Status> readStatus(String file) {
    byte[] buffer = new byte[4096];
    int length = 0;
    try (FileInputStream in = new FileInputStream(file)) {
      int n;
      while (length < buffer.length && (n = in.read(buffer, length, buffer.length - length)) > 0) {
        length += n;
      }
    } catch (IOException | SecurityException e) {
      return Optional.empty();
    }
    return parseStatus(new String(buffer, 0, length, StandardCharsets.ISO_8859_1));
  }

  /**
   * Parses the Uid, Threads, CapEff and NSpid lines of a status file; empty when Uid is missing.
   */
  static Optional<Status> parseStatus(String text) {
    long[] uids = null;
    int threads = 1;
    long capEff = 0;
    int pidNamespaces = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith("Uid:")) {
        StringTokenizer parts = new StringTokenizer(line.substring(4));
        if (parts.countTokens() >= 3) {
          uids =
              new long[] {
                Long.parseLong(parts.nextToken()),
                Long.parseLong(parts.nextToken()),
                Long.parseLong(parts.nextToken())
              };
        }
      } else if (line.startsWith("Threads:")) {
        threads = Integer.parseInt(line.substring(8).trim());
      } else if (line.startsWith("CapEff:")) {
        capEff = Long.parseUnsignedLong(line.substring(7).trim(), 16);
      } else if (line.startsWith("NSpid:")) {
        pidNamespaces = new StringTokenizer(line.substring(6)).countTokens();
      }
    }
    return uids == null
        ? Optional.empty()
        : Optional.of(new Status(uids, threads, capEff, pidNamespaces));
  }

  /** Whether a mountinfo line for {@code /proc} hides processes ({@code hidepid} other than 0). */
  static boolean hidesProcesses(List<String> mountinfo) {
    for (String line : mountinfo) {
      String[] fields = line.split(" ");
      int dash = List.of(fields).indexOf("-");
      if (fields.length > 4 && fields[4].equals("/proc") && dash > 0 && dash + 3 < fields.length) {
        for (String option : fields[dash + 3].split(",")) {
          if (option.startsWith("hidepid=")
              && !option.equals("hidepid=0")
              && !option.equals("hidepid=off")) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static final class Self {
    static final long[] UIDS;
    static final boolean CAN_KILL_ANY;
    static final boolean EXACT;

    static {
      Optional<Status> self = ProcFs.isAvailable() ? readStatus("/proc/self/status") : null;
      UIDS = self != null && self.isPresent() ? self.get().uids() : null;
      CAN_KILL_ANY = UIDS != null && (self.get().capEff() & (1L << CAP_KILL)) != 0;
      EXACT = UIDS != null && ownNamespace(self.get().pidNamespaces()) && !hidden();
    }

    /**
     * NSpid lists our pid in every namespace from the procfs's down to our own: one entry means the
     * procfs is our namespace's. Older kernels: compare {@code /proc/self} with our pid (the JDK's
     * process API starts a reaper thread, so only there).
     */
    private static boolean ownNamespace(int pidNamespaces) {
      if (pidNamespaces > 0) {
        return pidNamespaces == 1;
      }
      try {
        String self = Files.readSymbolicLink(Path.of("/proc/self")).toString();
        return self.equals(Long.toString(ProcessHandle.current().pid()));
      } catch (IOException | RuntimeException e) {
        return false;
      }
    }

    private static boolean hidden() {
      try {
        return hidesProcesses(Files.readAllLines(Path.of("/proc/self/mountinfo")));
      } catch (IOException | RuntimeException e) {
        return true; // cannot tell: do not trust an absent entry
      }
    }
  }
}
