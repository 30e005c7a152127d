package dev.lifecycle.posix;

import dev.lifecycle.internal.Setting;
import dev.lifecycle.process.Capabilities;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.process.spi.SignalSafety;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link ProcessPlatform} of Linux and macOS, through libc by JNA: {@code posix_spawn} into a
 * new session, {@code kill}/{@code killpg} with errno, exits observed by pidfd and one epoll thread
 * (Linux >= 5.4) or a {@code waitid} thread per child, identities and the process table from {@code
 * /proc} ({@link ProcFs}).
 *
 * <p>Linux is tested. The macOS paths (SETSID 0x400 with CLOEXEC_DEFAULT, Darwin signal numbers,
 * {@code proc_pidinfo} identities in the JDK's epoch milliseconds, a waitid thread per child
 * instead of kqueue) are written from the XNU headers and untested; on macOS the process table
 * (without groups and sessions), environment scan and command lines come from the pure-JDK
 * platform. So macOS is refused unless {@value #EXPERIMENTAL_MACOS} is {@code true}.
 *
 * <p>One instance per JVM ({@link #create()}): children, their exit watcher and the pidfds are
 * process-wide state.
 */
public final class PosixPlatform implements ProcessPlatform {
  private final OsConstants os;
  private final NativeFeatures features;
  private final Capabilities capabilities;
  private final Spawner spawner;
  private final ProcessIdentity self;
  private final Map<Integer, PosixProcess> children = new ConcurrentHashMap<>();
  private final ForeignPidfds foreign = new ForeignPidfds();
  private ExitWatcher watcher; // guarded by this; started with the first pidfd child

  private PosixPlatform(OsConstants os) {
    this.os = os;
    this.features = NativeFeatures.detect(os);
    boolean exact = os.isLinux() ? ProcFs.isAvailable() && !ProcFs.bootId().isEmpty() : true;
    this.capabilities =
        new Capabilities(
            "posix-" + os.name,
            features.spawnSetsid(),
            true,
            exact,
            features.pidfd(),
            features.details());
    this.spawner = new Spawner(features);
    int pid = LibC.getpid();
    this.self = identify(pid).orElse(ProcessIdentity.ofPid(pid));
  }

  /**
   * The platform of this JVM, created on first use.
   *
   * @return the one instance
   * @throws UnsupportedOperationException when not on Linux or macOS or libc cannot be bound, with
   *     the reason
   */
  public static PosixPlatform create() {
    if (Holder.INSTANCE instanceof PosixPlatform platform) {
      return platform;
    }
    Throwable failure = (Throwable) Holder.INSTANCE;
    throw new UnsupportedOperationException(
        "lifecycle-posix is not usable here: " + failure.getMessage(), failure);
  }

  /** Whether {@link #create()} succeeds and can start children in new sessions. Never throws. */
  static boolean isUsable() {
    return Holder.INSTANCE instanceof PosixPlatform platform && platform.capabilities.newSession();
  }

  /** System property that enables the untested macOS platform. */
  public static final String EXPERIMENTAL_MACOS = "lifecycle.posix.experimentalMacos";

  /** Environment variable equivalent of {@link #EXPERIMENTAL_MACOS}. */
  public static final String EXPERIMENTAL_MACOS_VARIABLE = "LIFECYCLE_POSIX_EXPERIMENTAL_MACOS";

  private static final Setting<Boolean> MACOS =
      Setting.flag(EXPERIMENTAL_MACOS, EXPERIMENTAL_MACOS_VARIABLE, false);

  static boolean experimentalMacos() {
    return MACOS.resolve();
  }

  /** Why this platform refuses to run on {@code os}, or empty when it runs there. */
  static java.util.Optional<String> refusal(OsConstants os, boolean experimental) {
    if (os.isLinux() || experimental) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        "macOS support is experimental and untested (the process table, sessions and"
            + " environment cookies of trees are not read natively there); set -D"
            + EXPERIMENTAL_MACOS
            + "=true or "
            + EXPERIMENTAL_MACOS_VARIABLE
            + "=true to use it anyway");
  }

  /** Why {@link #create()} fails here, or empty when it does not. Never throws. */
  static java.util.Optional<String> unusableReason() {
    if (Holder.INSTANCE instanceof PosixPlatform platform) {
      return platform.capabilities.newSession()
          ? java.util.Optional.empty()
          : java.util.Optional.of("lifecycle-posix: this libc has no POSIX_SPAWN_SETSID");
    }
    return java.util.Optional.of("lifecycle-posix: " + ((Throwable) Holder.INSTANCE).getMessage());
  }

  private static final class Holder {
    static final Object INSTANCE = load();

    private static Object load() {
      try {
        OsConstants os = OsConstants.current();
        if (os == null) {
          return new UnsupportedOperationException(
              "unsupported OS " + System.getProperty("os.name") + " (Linux only)");
        }
        java.util.Optional<String> refused = refusal(os, experimentalMacos());
        if (refused.isPresent()) {
          return new UnsupportedOperationException(refused.get());
        }
        return new PosixPlatform(os);
      } catch (RuntimeException | LinkageError e) {
        return e;
      }
    }
  }

  /**
   * What was detected, for logs and bug reports.
   *
   * @return a multi-line report: platform, capabilities and probed details
   */
  public String describe() {
    StringBuilder text = new StringBuilder("lifecycle-posix ").append(capabilities.platform());
    text.append("\n  newSession=").append(capabilities.newSession());
    text.append(" groupSignals=").append(capabilities.groupSignals());
    text.append(" exactIdentity=").append(capabilities.exactIdentity());
    text.append(" threadlessExitWatch=").append(capabilities.threadlessExitWatch());
    capabilities.details().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> text.append("\n  ").append(e.getKey()).append(": ").append(e.getValue()));
    return text.toString();
  }

  /**
   * Prints {@link #describe()}: {@code java -cp ... dev.lifecycle.posix.PosixPlatform}.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    System.out.println(create().describe());
  }

  @Override
  public Capabilities capabilities() {
    return capabilities;
  }

  /** {@link ProcFs#CLOCK} on Linux; epoch milliseconds on macOS, as the JDK measures them. */
  @Override
  public String identityClock() {
    return os.isLinux() ? ProcFs.CLOCK : "macos-epoch-millis";
  }

  @Override
  public SupervisedProcess spawn(ProcessBuilder builder, SpawnOptions options) throws IOException {
    Spawner.Spawned spawned = spawner.spawn(builder, options);
    int pid = spawned.pid();
    // Our unreaped child: the pid cannot have been reused, so the pidfd is for this child.
    int pidfd = features.pidfd() ? LinuxC.pidfdOpen(pid) : -1;
    if (options.newSession() && LibC.getsid(pid) != pid) {
      discard(pid, pidfd, spawned.stdio());
      throw new IOException(
          "child " + pid + " of " + builder.command() + " did not start in a session of its own");
    }
    ProcessIdentity identity = identify(pid).orElse(ProcessIdentity.ofPid(pid));
    PosixProcess process =
        new PosixProcess(
            os,
            pid,
            pidfd,
            identity,
            options.newSession() ? pid : -1,
            options.treeCookie(),
            options.keepLeaderUnreaped(),
            spawned.stdio(),
            reaped -> children.remove((int) reaped.pid(), reaped));
    children.put(pid, process);
    (pidfd >= 0 ? watcher() : ExitWatcher.threadPerChild()).watch(process);
    return process;
  }

  private synchronized ExitWatcher watcher() {
    if (watcher == null) {
      watcher = PidfdExitWatcher.start();
    }
    return watcher;
  }

  /** Kills and reaps a child that broke the spawn contract (SETSID silently ignored). */
  private void discard(int pid, int pidfd, Stdio stdio) {
    LibC.kill(pid, os.signal(Signal.KILL));
    com.sun.jna.Memory info = new com.sun.jna.Memory(OsConstants.SIGINFO_SIZE);
    while (LibC.waitid(OsConstants.P_PID, pid, info, OsConstants.WEXITED) != 0
        && LibC.errno() == OsConstants.EINTR) {
      // retry; SIGKILL ends it promptly
    }
    if (pidfd >= 0) {
      LibC.close(pidfd);
    }
    stdio.close();
  }

  @Override
  public boolean reapAdopted(ProcessIdentity zombie) {
    int pid = checkedPid(zombie.pid());
    if (!os.isLinux() || children.containsKey(pid) || pid == self.pid()) {
      return false;
    }
    Optional<ProcessInfo> now = ProcFs.stat(pid);
    if (now.isEmpty()
        || now.get().state() != dev.lifecycle.process.ProcessState.ZOMBIE
        || now.get().ppid() != self.pid()
        || zombie.match(now.get().identity(zombie.bootId())) != ProcessIdentity.Match.SAME) {
      return false;
    }
    // A zombie pins its pid until its parent (this JVM) reaps it, so the pid still names it here.
    com.sun.jna.Memory info = new com.sun.jna.Memory(OsConstants.SIGINFO_SIZE);
    info.clear();
    int rc;
    do {
      rc = LibC.waitid(OsConstants.P_PID, pid, info, OsConstants.WEXITED | OsConstants.WNOHANG);
    } while (rc != 0 && LibC.errno() == OsConstants.EINTR);
    return rc == 0 && os.waitedPid(info) == pid;
  }

  @Override
  public ProcessIdentity self() {
    return self;
  }

  @Override
  public long selfProcessGroup() {
    return LibC.getpgid(0);
  }

  @Override
  public Optional<ProcessIdentity> identify(long pid) {
    int p = checkedPid(pid);
    return os.isLinux() ? ProcFs.identity(p) : DarwinC.identity(p);
  }

  @Override
  public Liveness probe(long pid) {
    int p = checkedPid(pid);
    PosixProcess child = children.get(p);
    Liveness own = child != null ? child.probe() : null;
    if (own != null) {
      return own;
    }
    if (LibC.kill(p, 0) == 0) {
      return hasExited(p) ? Liveness.GONE : Liveness.ALIVE;
    }
    int errno = LibC.errno();
    if (errno == OsConstants.EPERM) {
      // another user's zombie answers EPERM too, but it has exited
      return hasExited(p) ? Liveness.GONE : Liveness.ALIVE_NOT_OURS;
    }
    if (errno == OsConstants.ESRCH) {
      if (features.pidfd()) {
        foreign.forget(p);
      }
      return Liveness.GONE;
    }
    throw new IllegalStateException("kill(" + pid + ", 0): " + LibC.describe(errno));
  }

  /** For our own unreaped child, its recorded identity is the pid's: no /proc read needed. */
  @Override
  public Liveness probe(ProcessIdentity identity) {
    PosixProcess child = children.get(checkedPid(identity.pid()));
    Liveness own = child != null ? child.probe() : null;
    if (own == null || own == Liveness.GONE) {
      return own != null ? own : ProcessPlatform.super.probe(identity);
    }
    return identity.match(child.identity()) == ProcessIdentity.Match.DIFFERENT
        ? Liveness.ALIVE_NOT_OURS
        : own;
  }

  @Override
  public SignalResult signal(ProcessIdentity identity, Signal signal) {
    SignalSafety.checkPid(identity.pid());
    int pid = (int) identity.pid();
    int signo = os.signal(signal);
    PosixProcess child = children.get(pid);
    if (child != null) { // ours and unreaped: race-free through its pidfd or its pinned pid
      return identity.match(child.identity()) == ProcessIdentity.Match.DIFFERENT
          ? SignalResult.IDENTITY_MISMATCH
          : child.send(signo);
    }
    Optional<ProcessIdentity> now = identify(pid);
    if (now.isPresent() && identity.match(now.get()) == ProcessIdentity.Match.DIFFERENT) {
      return SignalResult.IDENTITY_MISMATCH;
    }
    return result(LibC.kill(pid, signo));
  }

  @Override
  public SignalResult signalGroup(long pgid, Signal signal) {
    SignalSafety.checkGroup(pgid, selfProcessGroup());
    return result(LibC.killpg((int) pgid, os.signal(signal)));
  }

  private static SignalResult result(int rc) {
    if (rc == 0) {
      return SignalResult.DELIVERED;
    }
    int errno = LibC.errno();
    if (errno == OsConstants.EPERM) {
      return SignalResult.NOT_PERMITTED;
    }
    if (errno == OsConstants.ESRCH) {
      return SignalResult.GONE;
    }
    throw new IllegalStateException("kill: " + LibC.describe(errno));
  }

  @Override
  public ProcessTable snapshot() {
    return os.isLinux() ? ProcFs.snapshot() : ProcessPlatform.jdk().snapshot();
  }

  @Override
  public Set<Long> findByEnvironment(String name, String value) {
    return os.isLinux()
        ? ProcFs.findByEnvironment(name, value)
        : ProcessPlatform.jdk().findByEnvironment(name, value);
  }

  @Override
  public Set<Long> findByEnvironment(String name, String value, Collection<Long> candidates) {
    return os.isLinux()
        ? ProcFs.findByEnvironment(name, value, candidates)
        : ProcessPlatform.super.findByEnvironment(name, value, candidates);
  }

  @Override
  public Optional<ProcessInfo> info(long pid) {
    int p = checkedPid(pid);
    return os.isLinux() ? ProcFs.stat(p) : ProcessPlatform.jdk().info(p);
  }

  @Override
  public List<Long> pids() {
    return os.isLinux() ? ProcFs.pids() : ProcessPlatform.jdk().pids();
  }

  @Override
  public EnvironmentEntry environmentEntry(long pid, String name, String value) {
    return os.isLinux()
        ? ProcFs.environmentEntry(pid, name, value)
        : ProcessPlatform.super.environmentEntry(pid, name, value);
  }

  @Override
  public Optional<String> environmentValue(long pid, String name) {
    return os.isLinux() ? ProcFs.environmentValue(pid, name) : Optional.empty();
  }

  @Override
  public Optional<List<String>> commandLine(long pid) {
    int p = checkedPid(pid);
    return os.isLinux() ? ProcFs.commandLine(p) : ProcessPlatform.jdk().commandLine(p);
  }

  /**
   * Zombie check after kill(pid, 0) succeeded: a poll of the pid's pidfd, kept open for the next
   * probe of the same pid ({@link ForeignPidfds}); /proc where pidfds are missing.
   */
  private boolean hasExited(int pid) {
    if (!os.isLinux()) {
      return DarwinC.isZombie(pid);
    }
    int exited = features.pidfd() ? foreign.exited(pid) : -1;
    return exited >= 0 ? exited == 1 : ProcFs.stat(pid).map(ProcessInfo::hasExited).orElse(false);
  }

  /** How many pidfds of other processes are held for repeated probes (tests). */
  int heldForeignPidfds() {
    return foreign.size();
  }

  /** Rejects what no pid_t can name, before any system call. */
  private static int checkedPid(long pid) {
    if (pid <= 0 || pid > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("not a valid pid: " + pid);
    }
    return (int) pid;
  }

  @Override
  public String toString() {
    return "PosixPlatform" + capabilities;
  }
}
