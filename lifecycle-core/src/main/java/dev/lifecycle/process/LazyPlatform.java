package dev.lifecycle.process;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What {@link ProcessPlatform#get()} returns: the chosen platform, loaded on first need. Where the
 * pure-JDK fallback's reads are exact (Linux {@code /proc} of our pid namespace, without {@code
 * hidepid}: its {@link Capabilities#exactIdentity()}), identities, probes, the process table,
 * environments and command lines come from the fallback, which reads them exactly as every built-in
 * platform does there, so a program that only reads records, probes owners and connects never loads
 * a native provider. Spawning, signalling and {@link #capabilities()} load the chosen platform;
 * from then on every call goes to it (its probes know its own children and are faster).
 *
 * <p>Thread-safe: the chosen platform is published once through a holder class.
 */
final class LazyPlatform implements ProcessPlatform {
  private final ProcessPlatform fallback;
  private final boolean fallbackReads;
  private volatile ProcessPlatform loaded; // null until something needed it

  LazyPlatform() {
    this(PlatformLoader.jdk());
  }

  LazyPlatform(ProcessPlatform fallback) {
    this.fallback = fallback;
    this.fallbackReads = fallback.capabilities().exactIdentity();
  }

  private ProcessPlatform platform() {
    ProcessPlatform platform = loaded;
    if (platform == null) {
      platform = PlatformLoader.resolved();
      loaded = platform;
    }
    return platform;
  }

  /** The platform that answers a read now: the loaded one, else the fallback where it is exact. */
  private ProcessPlatform reads() {
    ProcessPlatform platform = loaded;
    if (platform != null) {
      return platform;
    }
    return fallbackReads ? fallback : platform();
  }

  @Override
  public Capabilities capabilities() {
    return platform().capabilities();
  }

  @Override
  public String identityClock() {
    return reads().identityClock();
  }

  @Override
  public SupervisedProcess spawn(ProcessBuilder builder, SpawnOptions options) throws IOException {
    return platform().spawn(builder, options);
  }

  @Override
  public ProcessIdentity self() {
    return reads().self();
  }

  @Override
  public long selfProcessGroup() {
    return reads().selfProcessGroup();
  }

  @Override
  public Optional<ProcessIdentity> identify(long pid) {
    return reads().identify(pid);
  }

  @Override
  public Liveness probe(long pid) {
    return reads().probe(pid);
  }

  @Override
  public Liveness probe(ProcessIdentity identity) {
    return reads().probe(identity);
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
    return reads().snapshot();
  }

  @Override
  public Optional<ProcessInfo> info(long pid) {
    return reads().info(pid);
  }

  @Override
  public List<Long> pids() {
    return reads().pids();
  }

  @Override
  public Set<Long> findByEnvironment(String name, String value) {
    return reads().findByEnvironment(name, value);
  }

  @Override
  public Set<Long> findByEnvironment(String name, String value, Collection<Long> candidates) {
    return reads().findByEnvironment(name, value, candidates);
  }

  @Override
  public EnvironmentEntry environmentEntry(long pid, String name, String value) {
    return reads().environmentEntry(pid, name, value);
  }

  @Override
  public Optional<String> environmentValue(long pid, String name) {
    return reads().environmentValue(pid, name);
  }

  /** Only a loaded platform has spawned anything whose orphans could have been adopted. */
  @Override
  public boolean reapAdopted(ProcessIdentity zombie) {
    ProcessPlatform platform = fallbackReads ? loaded : platform();
    return platform != null && platform.reapAdopted(zombie);
  }

  @Override
  public Optional<List<String>> commandLine(long pid) {
    return reads().commandLine(pid);
  }

  /** Whether the chosen platform has been loaded (for tests and diagnostics). */
  boolean isLoaded() {
    return loaded != null;
  }

  @Override
  public String toString() {
    ProcessPlatform platform = loaded;
    return platform != null
        ? platform.toString()
        : "ProcessPlatform[not loaded yet, reads from " + fallback + "]";
  }
}
