package dev.lifecycle.broker;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.tree.ProcessTree;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Kills everything a broker test started, by identity: the trees it spawned, and every process that
 * carries the test's store directory in {@link BrokerClient#DIRECTORY_VARIABLE} (brokers started by
 * clients and their backends, which inherit it). Also: bounded polling.
 */
final class Reaper {
  private final Path store;
  private final List<ProcessTree> trees = new ArrayList<>();

  Reaper(Path store) {
    this.store = store;
  }

  synchronized ProcessTree track(ProcessTree tree) {
    trees.add(tree);
    return tree;
  }

  /** Live processes (zombies count as gone) that inherited this test's store directory. */
  List<ProcessIdentity> started() {
    List<ProcessIdentity> alive = new ArrayList<>();
    for (long pid : ProcFs.findByEnvironment(BrokerClient.DIRECTORY_VARIABLE, store.toString())) {
      ProcFs.stat(pid)
          .filter(row -> !row.hasExited())
          .ifPresent(row -> alive.add(row.identity(ProcFs.bootId())));
    }
    return alive;
  }

  /** Live broker JVMs of this test. */
  List<Long> brokers() {
    return started().stream()
        .map(ProcessIdentity::pid)
        .filter(
            pid ->
                ProcFs.commandLine(pid)
                    .map(cmd -> cmd.contains(TestBrokerMain.class.getName()))
                    .orElse(false))
        .toList();
  }

  synchronized void killAll() {
    ProcessPlatform platform = ProcessPlatform.get();
    for (ProcessTree tree : trees) {
      try {
        tree.terminate(Duration.ZERO);
      } catch (RuntimeException e) {
        System.err.println("cleanup of " + tree + " failed: " + e);
      }
    }
    trees.clear();
    for (ProcessIdentity identity : started()) {
      platform.signal(identity, Signal.KILL);
    }
    until(Duration.ofSeconds(5), "every started process gone", () -> started().isEmpty());
  }

  static boolean isGone(ProcessIdentity identity) {
    return Await.isGone(identity);
  }

  static boolean isGone(long pid) {
    return ProcFs.stat(pid).map(row -> row.hasExited()).orElse(true);
  }

  static void until(Duration timeout, String what, BooleanSupplier done) {
    Await.until(timeout, what, done);
  }
}
