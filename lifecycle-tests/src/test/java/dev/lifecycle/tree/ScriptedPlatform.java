package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.testing.ForwardingPlatform;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real platform with two test levers: it can misreport a pid's start time in snapshots (so the
 * tree holds an identity that no longer matches the process: as after pid reuse), it can spawn
 * without a new session (so the child shares the JVM's group), and it can run a hook right before a
 * group SIGKILL (to stage a race with real processes). It records every group signal.
 */
final class ScriptedPlatform extends ForwardingPlatform {
  private final boolean sharedGroup;
  private final Set<Long> lies = ConcurrentHashMap.newKeySet();
  final List<String> groupSignals = new CopyOnWriteArrayList<>();
  private volatile Runnable beforeGroupKill = () -> {};

  ScriptedPlatform(ProcessPlatform real, boolean sharedGroup) {
    super(real);
    this.sharedGroup = sharedGroup;
  }

  /** From now on, snapshots report {@code pid} with a different start time. */
  void misidentify(long pid) {
    lies.add(pid);
  }

  @Override
  public ProcessTable snapshot() {
    ProcessTable table = real.snapshot();
    List<ProcessInfo> rows =
        table.all().stream()
            .map(
                r ->
                    lies.contains(r.pid())
                        ? new ProcessInfo(
                            r.pid(),
                            r.ppid(),
                            r.pgid(),
                            r.sid(),
                            r.startTime() + 1,
                            r.state(),
                            r.cpuTime(),
                            r.command(),
                            r.residentBytes())
                        : r)
            .toList();
    return ProcessTable.of(rows, table.bootId(), table.takenAtNanos());
  }

  @Override
  public SupervisedProcess spawn(ProcessBuilder builder, SpawnOptions options) throws IOException {
    return real.spawn(builder, sharedGroup ? options.withNewSession(false) : options);
  }

  @Override
  public SignalResult signalGroup(long pgid, Signal signal) {
    groupSignals.add(signal + " " + pgid);
    if (signal == Signal.KILL) {
      Runnable hook = beforeGroupKill;
      beforeGroupKill = () -> {};
      hook.run();
    }
    return real.signalGroup(pgid, signal);
  }

  /** Runs {@code hook} once, just before the next group SIGKILL goes out. */
  void beforeGroupKill(Runnable hook) {
    beforeGroupKill = hook;
  }
}
