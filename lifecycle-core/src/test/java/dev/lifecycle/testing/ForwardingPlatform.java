package dev.lifecycle.testing;

import dev.lifecycle.process.Capabilities;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A real platform passed through, for tests that change or count one of its calls: every call the
 * platform must implement (and {@code reapAdopted}) goes to {@code real}; the interface's other
 * default methods stay defaults, so they reach the overridden calls. Shared by every module's tests
 * through lifecycle-core's test jar.
 */
public abstract class ForwardingPlatform implements ProcessPlatform {
  /** The platform every call goes to unless a subclass overrides it. */
  protected final ProcessPlatform real;

  /** Forwards to {@code real}. */
  protected ForwardingPlatform(ProcessPlatform real) {
    this.real = real;
  }

  @Override
  public Capabilities capabilities() {
    return real.capabilities();
  }

  @Override
  public String identityClock() {
    return real.identityClock();
  }

  @Override
  public SupervisedProcess spawn(ProcessBuilder builder, SpawnOptions options) throws IOException {
    return real.spawn(builder, options);
  }

  @Override
  public ProcessIdentity self() {
    return real.self();
  }

  @Override
  public long selfProcessGroup() {
    return real.selfProcessGroup();
  }

  @Override
  public Optional<ProcessIdentity> identify(long pid) {
    return real.identify(pid);
  }

  @Override
  public Liveness probe(long pid) {
    return real.probe(pid);
  }

  @Override
  public Liveness probe(ProcessIdentity identity) {
    return real.probe(identity);
  }

  @Override
  public SignalResult signal(ProcessIdentity identity, Signal signal) {
    return real.signal(identity, signal);
  }

  @Override
  public SignalResult signalGroup(long pgid, Signal signal) {
    return real.signalGroup(pgid, signal);
  }

  @Override
  public ProcessTable snapshot() {
    return real.snapshot();
  }

  @Override
  public Set<Long> findByEnvironment(String name, String value) {
    return real.findByEnvironment(name, value);
  }

  @Override
  public boolean reapAdopted(ProcessIdentity zombie) {
    return real.reapAdopted(zombie);
  }

  @Override
  public Optional<List<String>> commandLine(long pid) {
    return real.commandLine(pid);
  }
}
