package dev.lifecycle.process.jdk;

import dev.lifecycle.process.Capabilities;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessState;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.process.procfs.ProcLiveness;
import dev.lifecycle.process.spi.SignalSafety;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pure-JDK fallback: {@link ProcessBuilder} and {@link ProcessHandle}, plus Linux {@code /proc}
 * read as files. Weaker than the JNA platform, and {@link #capabilities()} says so: Thread-safe.
 *
 * <ul>
 *   <li>a new session only through util-linux {@code setsid} (Linux), and with a short window
 *       between fork and {@code setsid()} in which the child still shares our group;
 *   <li>no group signals: trees are ended per descendant with {@link ProcessHandle#destroy()};
 *   <li>only TERM and KILL can be sent; EPERM is visible to probes only where {@code /proc} is
 *       exact (the kernel's credential rule read from it), else a foreign process reads as ALIVE;
 *   <li>exits are watched by the JDK's reaper threads; leaders cannot be kept unreaped;
 *   <li>without {@code /proc}, identities carry {@link ProcessHandle.Info#startInstant()} only and
 *       no boot id, so they compare as {@link ProcessIdentity.Match#UNKNOWN} across boots.
 * </ul>
 */
final class JdkPlatform implements ProcessPlatform {
  private static final Path SETSID = Path.of("/usr/bin/setsid");

  private final boolean procfs;
  private final boolean exact; // /proc of our pid namespace, without hidepid
  private final boolean setsid;
  private final Capabilities capabilities;

  private JdkPlatform() {
    this.procfs = ProcFs.isAvailable();
    this.exact = procfs && ProcLiveness.isExact();
    this.setsid = Files.isExecutable(SETSID);
    Map<String, String> details = new LinkedHashMap<>();
    details.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    details.put("procfs", Boolean.toString(procfs));
    details.put("setsid", setsid ? SETSID.toString() : "absent");
    this.capabilities = new Capabilities("jdk", setsid, false, exact, false, details);
  }

  /**
   * This JVM, identified on first need: a client that only reads records and probes owners never
   * starts the JDK's process API, which sets up its reaper thread.
   */
  private static final class Self {
    static final long PID = ownPid();

    /** Where /proc is our namespace's (see ProcLiveness#isExact), /proc/self names us. */
    private static long ownPid() {
      if (ProcLiveness.isExact()) {
        try {
          return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/self")).toString());
        } catch (IOException | NumberFormatException e) {
          // The process API below answers.
        }
      }
      return ProcessHandle.current().pid();
    }

    static final ProcessIdentity IDENTITY =
        identity(PID, ProcFs.isAvailable()).orElse(ProcessIdentity.ofPid(PID));
    static final long GROUP =
        ProcFs.isAvailable() ? ProcFs.stat(PID).map(ProcessInfo::pgid).orElse(-1L) : -1L;
  }

  /** Creates the fallback platform. Prefer {@link ProcessPlatform#jdk()}, which caches one. */
  public static JdkPlatform create() {
    return new JdkPlatform();
  }

  @Override
  public Capabilities capabilities() {
    return capabilities;
  }

  /** {@link ProcFs#CLOCK} where {@code /proc} is read, else epoch milliseconds from the JDK. */
  @Override
  public String identityClock() {
    return procfs ? ProcFs.CLOCK : "jdk-epoch-millis";
  }

  @Override
  public SupervisedProcess spawn(ProcessBuilder builder, SpawnOptions options) throws IOException {
    List<String> command = List.copyOf(builder.command());
    if (command.isEmpty()) {
      throw new IllegalArgumentException("empty command");
    }
    checkExecutable(command.get(0), builder);
    List<String> actual = new ArrayList<>();
    boolean isolated = options.newSession() && setsid;
    if (isolated) {
      // ProcessBuilder's child is not a group leader, so setsid(1) calls setsid() and execs in
      // place: the pid we hold is the session leader and pid == pgid == sid.
      actual.add(SETSID.toString());
    }
    // In the CGROUP tier the program starts inside its cgroup (see Cgroup.enteringCommand).
    actual.addAll(
        options
            .cgroup()
            .map(Cgroup::at)
            .map(c -> c.enteringCommand(command, builder.environment()))
            .orElse(command));
    ProcessBuilder copy =
        new ProcessBuilder(actual)
            .directory(builder.directory())
            .redirectInput(builder.redirectInput())
            .redirectOutput(builder.redirectOutput())
            .redirectError(builder.redirectError())
            .redirectErrorStream(builder.redirectErrorStream());
    copy.environment().clear();
    copy.environment().putAll(builder.environment());
    copy.environment().put(SpawnOptions.COOKIE_VARIABLE, options.treeCookie());
    Process process = copy.start();
    if (options.cgroup().isPresent()) {
      Cgroup cgroup = Cgroup.at(options.cgroup().get());
      // Belt and braces: the entering shell moved itself before the program ran; a leader that
      // has exited by now ran inside (or exited 125 when the shell could not enter).
      try {
        cgroup.enterUnlessExited(process.pid());
      } catch (IOException e) {
        process.destroyForcibly();
        process
            .onExit()
            .orTimeout(5, java.util.concurrent.TimeUnit.SECONDS)
            .exceptionally(t -> null)
            .join();
        throw new dev.lifecycle.process.cgroup.CgroupEntryException(
            "cannot move " + command + " into its cgroup: " + e.getMessage(), e);
      }
    }
    ProcessIdentity identity = identify(process.pid()).orElse(ProcessIdentity.ofPid(process.pid()));
    return new JdkSupervisedProcess(
        process, identity, isolated ? process.pid() : -1, options.treeCookie());
  }

  /**
   * ProcessBuilder reports a missing program as an IOException with errno, but behind the setsid
   * wrapper it would become exit status 1. Resolve the program first so both paths fail alike.
   */
  private static void checkExecutable(String program, ProcessBuilder builder) throws IOException {
    Map<String, String> env = builder.environment();
    Path directory = builder.directory() == null ? null : builder.directory().toPath();
    List<String> extensions = WINDOWS ? pathExtensions(env.get("PATHEXT")) : List.of();
    String searchPath = env.getOrDefault("PATH", WINDOWS ? "" : "/usr/bin:/bin");
    if (findExecutable(program, directory, searchPath, File.pathSeparator, extensions)
        .isPresent()) {
      return;
    }
    if (!hasDirectory(program)) {
      throw new IOException(
          "Cannot run program \""
              + program
              + "\": error=2, No such file or directory (not on PATH"
              + (extensions.isEmpty() ? "" : " with PATHEXT " + extensions)
              + ")");
    }
    Path path = within(directory, program);
    if (!Files.exists(path)) {
      throw new IOException(
          "Cannot run program \"" + program + "\": error=2, No such file or directory");
    }
    throw new IOException("Cannot run program \"" + program + "\": error=13, Permission denied");
  }

  private static final boolean WINDOWS = File.separatorChar == '\\';

  /** The extensions Windows tries for a bare command name, from {@code PATHEXT}. */
  static List<String> pathExtensions(String pathext) {
    String value = pathext == null || pathext.isBlank() ? ".COM;.EXE;.BAT;.CMD" : pathext;
    List<String> extensions = new ArrayList<>();
    for (String extension : value.split(";")) {
      if (!extension.isBlank()) {
        extensions.add(extension.trim());
      }
    }
    return List.copyOf(extensions);
  }

  /**
   * The executable {@code program} names: as given when it has a directory part (relative to {@code
   * directory}), else the first match in {@code searchPath} (empty entries mean the working
   * directory). Each candidate is tried as is and then with each of {@code extensions} appended
   * (Windows {@code PATHEXT}; empty elsewhere).
   */
  static Optional<Path> findExecutable(
      String program,
      Path directory,
      String searchPath,
      String separator,
      List<String> extensions) {
    if (hasDirectory(program)) {
      return executable(within(directory, program), extensions);
    }
    for (String entry : searchPath.split(java.util.regex.Pattern.quote(separator), -1)) {
      Optional<Path> found =
          executable(
              within(directory, (entry.isEmpty() ? "." : entry) + "/" + program), extensions);
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }

  private static Optional<Path> executable(Path candidate, List<String> extensions) {
    List<Path> names = new ArrayList<>();
    names.add(candidate);
    for (String extension : extensions) {
      names.add(candidate.resolveSibling(candidate.getFileName() + extension));
    }
    return names.stream()
        .filter(path -> Files.isRegularFile(path) && Files.isExecutable(path))
        .findFirst();
  }

  private static boolean hasDirectory(String program) {
    return program.contains("/") || (WINDOWS && program.contains("\\"));
  }

  private static Path within(Path directory, String program) {
    Path path = Path.of(program);
    return path.isAbsolute() || directory == null ? path : directory.resolve(path);
  }

  @Override
  public ProcessIdentity self() {
    return Self.IDENTITY;
  }

  @Override
  public long selfProcessGroup() {
    // Read each time where possible: a JVM may call setpgid on itself.
    return procfs ? ProcFs.stat(Self.PID).map(ProcessInfo::pgid).orElse(Self.GROUP) : Self.GROUP;
  }

  @Override
  public Optional<ProcessIdentity> identify(long pid) {
    requirePositive(pid);
    return identity(pid, procfs);
  }

  private static Optional<ProcessIdentity> identity(long pid, boolean procfs) {
    if (procfs) {
      return ProcFs.identity(pid);
    }
    return ProcessHandle.of(pid)
        .map(
            h ->
                new ProcessIdentity(
                    pid, h.info().startInstant().map(Instant::toEpochMilli).orElse(-1L), ""));
  }

  @Override
  public Liveness probe(long pid) {
    requirePositive(pid);
    if (exact) {
      return ProcLiveness.probe(pid);
    }
    if (procfs) {
      return ProcFs.stat(pid).filter(p -> !p.hasExited()).isPresent()
          ? Liveness.ALIVE
          : Liveness.GONE;
    }
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isPresent()
        ? Liveness.ALIVE
        : Liveness.GONE;
  }

  @Override
  public Liveness probe(ProcessIdentity identity) {
    return exact ? ProcLiveness.probe(identity) : ProcessPlatform.super.probe(identity);
  }

  @Override
  public SignalResult signal(ProcessIdentity identity, Signal signal) {
    SignalSafety.checkPid(identity.pid());
    if (signal != Signal.TERM && signal != Signal.KILL) {
      throw new UnsupportedOperationException(
          "the pure-JDK platform can only send TERM and KILL, not " + signal);
    }
    Optional<ProcessIdentity> now = identify(identity.pid());
    if (now.isEmpty()) {
      return SignalResult.GONE;
    }
    if (identity.match(now.get()) == ProcessIdentity.Match.DIFFERENT) {
      return SignalResult.IDENTITY_MISMATCH;
    }
    Optional<ProcessHandle> handle = ProcessHandle.of(identity.pid());
    if (handle.isEmpty()) {
      return SignalResult.GONE;
    }
    boolean sent = signal == Signal.KILL ? handle.get().destroyForcibly() : handle.get().destroy();
    if (sent) {
      return SignalResult.DELIVERED;
    }
    return handle.get().isAlive() ? SignalResult.NOT_PERMITTED : SignalResult.GONE;
  }

  @Override
  public SignalResult signalGroup(long pgid, Signal signal) {
    SignalSafety.checkGroup(pgid, selfProcessGroup());
    throw new UnsupportedOperationException(
        "the pure-JDK platform cannot signal process groups; end each member instead");
  }

  @Override
  public ProcessTable snapshot() {
    if (procfs) {
      return ProcFs.snapshot();
    }
    long started = System.nanoTime();
    List<ProcessInfo> rows = new ArrayList<>();
    ProcessHandle.allProcesses().forEach(h -> rows.add(row(h)));
    return ProcessTable.of(rows, "", started);
  }

  /** A row from what {@link ProcessHandle} knows: no group, no session, no exact state. */
  private static ProcessInfo row(ProcessHandle h) {
    ProcessHandle.Info info = h.info();
    return new ProcessInfo(
        h.pid(),
        h.parent().map(ProcessHandle::pid).orElse(-1L),
        -1,
        -1,
        info.startInstant().map(Instant::toEpochMilli).orElse(-1L),
        h.isAlive() ? ProcessState.UNKNOWN : ProcessState.DEAD,
        info.totalCpuDuration().orElse(Duration.ZERO),
        info.command().map(c -> Path.of(c).getFileName().toString()).orElse(""),
        -1);
  }

  @Override
  public Set<Long> findByEnvironment(String name, String value) {
    return procfs ? ProcFs.findByEnvironment(name, value) : Set.of();
  }

  @Override
  public Set<Long> findByEnvironment(String name, String value, Collection<Long> candidates) {
    return procfs ? ProcFs.findByEnvironment(name, value, candidates) : Set.of();
  }

  @Override
  public EnvironmentEntry environmentEntry(long pid, String name, String value) {
    return procfs
        ? ProcFs.environmentEntry(pid, name, value)
        : ProcessPlatform.super.environmentEntry(pid, name, value);
  }

  @Override
  public Optional<String> environmentValue(long pid, String name) {
    return procfs ? ProcFs.environmentValue(pid, name) : Optional.empty();
  }

  @Override
  public Optional<ProcessInfo> info(long pid) {
    requirePositive(pid);
    if (procfs) {
      return ProcFs.stat(pid);
    }
    return ProcessHandle.of(pid).map(JdkPlatform::row);
  }

  @Override
  public List<Long> pids() {
    return procfs ? ProcFs.pids() : ProcessHandle.allProcesses().map(ProcessHandle::pid).toList();
  }

  @Override
  public Optional<List<String>> commandLine(long pid) {
    requirePositive(pid);
    if (procfs) {
      return ProcFs.commandLine(pid);
    }
    return ProcessHandle.of(pid)
        .flatMap(
            h -> {
              Optional<String> command = h.info().command();
              if (command.isEmpty()) {
                return Optional.empty();
              }
              List<String> line = new ArrayList<>();
              line.add(command.get());
              h.info().arguments().ifPresent(args -> line.addAll(List.of(args)));
              return Optional.of(List.copyOf(line));
            });
  }

  private static void requirePositive(long pid) {
    if (pid <= 0) {
      throw new IllegalArgumentException("pid must be positive: " + pid);
    }
  }

  @Override
  public String toString() {
    return "JdkPlatform" + capabilities;
  }
}
