package dev.lifecycle.process;

import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.process.procfs.ProcLiveness;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What {@link ProcessPlatform#get()} returns: the chosen platform, loaded on first need. Where
 * {@link ProcLiveness#isExact() /proc is exact} (Linux), identities, probes, the process table,
 * environments and command lines are read from {@code /proc}, exactly as both built-in platforms
 * read them there, so a program that only reads records, probes owners and connects never loads a
 * provider or native code. Spawning, signalling and {@link #capabilities()} load the chosen
 * platform; from then on every call goes to it (its probes know its own children and are faster).
 *
 * <p>Thread-safe: the chosen platform is published once through a holder class.
 */
final class LazyPlatform implements ProcessPlatform {
  private final boolean procfs = ProcLiveness.isExact();
  private volatile ProcessPlatform loaded; // null until something needed it

  private ProcessPlatform platform() {
    ProcessPlatform platform = loaded;
    if (platform == null) {
      platform = PlatformLoader.resolved();
      loaded = platform;
    }
    return platform;
  }

  /** The loaded platform, or null while reads are still served from /proc. */
  private ProcessPlatform ifLoaded() {
    return procfs ? loaded : platform();
  }

  @Override
  public Capabilities capabilities() {
    return platform().capabilities();
  }

  @Override
  public String identityClock() {
    ProcessPlatform platform = ifLoaded();
    return platform == null ? ProcFs.CLOCK : platform.identityClock();
  }

  @Override
  public SupervisedProcess spawn(ProcessBuilder builder, SpawnOptions options) throws IOException {
    return platform().spawn(builder, options);
  }

  @Override
  public ProcessIdentity self() {
    ProcessPlatform platform = ifLoaded();
    return platform == null ? Self.IDENTITY : platform.self();
  }

  @Override
  public long selfProcessGroup() {
    ProcessPlatform platform = ifLoaded();
    if (platform != null) {
      return platform.selfProcessGroup();
    }
    // Not cached: a JVM may call setpgid on itself.
    return ProcFs.stat(Self.IDENTITY.pid())
        .map(ProcessInfo::pgid)
        .orElseGet(() -> platform().selfProcessGroup());
  }

  @Override
  public Optional<ProcessIdentity> identify(long pid) {
    ProcessPlatform platform = ifLoaded();
    return platform == null ? ProcFs.identity(pid) : platform.identify(pid);
  }

  @Override
  public Liveness probe(long pid) {
    ProcessPlatform platform = ifLoaded();
    return platform == null ? ProcLiveness.probe(pid) : platform.probe(pid);
  }

  @Override
  public Liveness probe(ProcessIdentity identity) {
    ProcessPlatform platform = ifLoaded();
    return platform == null ? ProcLiveness.probe(identity) : platform.probe(identity);
  }

  @Override
  public SignalResult signal(ProcessIdentity identity, Signal signal) {
    return platform().signal(identity, signal);
  }

  @Override
  public SignalResult signalGroup(long pgid, Signal signal) {
    return platform().signalGroup(pgid, signal);
  }

  @Override
  public ProcessTable snapshot() {
    ProcessPlatform platform = ifLoaded();
    return platform == null ? ProcFs.snapshot() : platform.snapshot();
  }

  @Override
  public Set<Long> findByEnvironment(String name, String value) {
    ProcessPlatform platform = ifLoaded();
    return platform == null
        ? ProcFs.findByEnvironment(name, value)
        : platform.findByEnvironment(name, value);
  }

  @Override
  public Set<Long> findByEnvironment(String name, String value, Collection<Long> candidates) {
    ProcessPlatform platform = ifLoaded();
    return platform == null
        ? ProcFs.findByEnvironment(name, value, candidates)
        : platform.findByEnvironment(name, value, candidates);
  }

  /** Only a loaded platform has spawned anything whose orphans could have been adopted. */
  @Override
  public boolean reapAdopted(ProcessIdentity zombie) {
    ProcessPlatform platform = ifLoaded();
    return platform != null && platform.reapAdopted(zombie);
  }

  @Override
  public Optional<List<String>> commandLine(long pid) {
    ProcessPlatform platform = ifLoaded();
    if (platform != null) {
      return platform.commandLine(pid);
    }
    if (pid <= 0) {
      throw new IllegalArgumentException("pid must be positive: " + pid);
    }
    return ProcFs.commandLine(pid);
  }

  /** Whether the chosen platform has been loaded (for tests and diagnostics). */
  boolean isLoaded() {
    return loaded != null;
  }

  @Override
  public String toString() {
    ProcessPlatform platform = loaded;
    return platform != null ? platform.toString() : "ProcessPlatform[not loaded yet, /proc reads]";
  }

  private static final class Self {
    static final ProcessIdentity IDENTITY = identity();

    private static ProcessIdentity identity() {
      long pid = ProcessHandle.current().pid();
      return ProcFs.identity(pid).orElse(ProcessIdentity.ofPid(pid));
    }
  }
}
