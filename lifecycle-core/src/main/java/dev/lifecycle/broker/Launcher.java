package dev.lifecycle.broker;

import dev.lifecycle.internal.Backoff;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.ReadResult;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.record.SessionRecord;
import dev.lifecycle.time.Limit;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeOptions;
import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;

/**
 * Spawns a broker as a detached tree and waits, bounded, until a record names a reachable broker:
 * its own, or another live one that won a race (then the spawned broker refuses to publish and
 * exits by itself). A broker that never became ready is terminated and its record reclaimed.
 */
final class Launcher {
  /** How long a broker that missed its readiness bound gets after SIGTERM to run its own pass. */
  static final Duration STOP_GRACE = TreeOptions.DEFAULT_GRACE;

  private final RecordStore store;
  private final String name;
  private final ProcessPlatform platform;
  private final Limit readyTimeout;

  Launcher(RecordStore store, String name, ProcessPlatform platform, Limit readyTimeout) {
    this.store = store;
    this.name = name;
    this.platform = platform;
    this.readyTimeout = readyTimeout;
  }

  BrokerSession launch(ProcessBuilder builder) throws IOException {
    builder.environment().put(BrokerClient.DIRECTORY_VARIABLE, store.directory().toString());
    builder.environment().put(BrokerClient.NAME_VARIABLE, name);
    // Detached: nobody reads its pipes once this client is gone, and a full pipe would stall it.
    if (builder.redirectInput() == Redirect.PIPE) {
      builder.redirectInput(Redirect.from(new File("/dev/null")));
    }
    if (builder.redirectOutput() == Redirect.PIPE) {
      builder.redirectOutput(Redirect.DISCARD);
    }
    if (builder.redirectError() == Redirect.PIPE) {
      builder.redirectError(Redirect.DISCARD);
    }
    ProcessTree tree =
        ProcessTree.spawn(platform, builder, TreeOptions.defaults().withGrace(STOP_GRACE));
    long pid = tree.leader().pid();
    // Not logged: the session returned says who started it, and the client path creates no logger.
    long started = System.nanoTime();
    // The caller waits for nothing else: a 10 ms ceiling sees a ready broker at most 10 ms late,
    // for one record read per poll.
    Backoff backoff = Backoff.of(Duration.ofMillis(1), Duration.ofMillis(10));
    try {
      while (true) {
        ReadResult result = store.read(name);
        if (result.isValid()) {
          SessionRecord record = result.record().orElseThrow();
          // Handed off (ours), or another broker serves and ours will refuse to publish: either
          // way it outlives us. Reap it when it exits so a long-lived client keeps no zombie.
          tree.leader().onExit().thenRun(tree.leader()::reap);
          return new BrokerSession(record, record.owner().pid() == pid);
        }
        if (!tree.leader().isAlive()) {
          if (tree.leader().exitValue() == 0) {
            // It served and left (an idle timeout shorter than our polling): start over.
            throw new ExitedCleanly(
                "broker "
                    + name
                    + " (pid "
                    + pid
                    + ") exited with status 0 before this client saw it serving",
                pid);
          }
          throw new BrokerException(
              "broker "
                  + name
                  + " (pid "
                  + pid
                  + ") exited with status "
                  + tree.leader().exitValue()
                  + " before it was serving",
              pid);
        }
        if (readyTimeout.isEnabled() && System.nanoTime() - started >= readyTimeout.toNanos()) {
          throw new BrokerException(
              "broker "
                  + name
                  + " (pid "
                  + pid
                  + ") was not serving within "
                  + readyTimeout
                  + "; its tree was terminated",
              pid);
        }
        backoff.pause();
      }
    } catch (IOException | RuntimeException | Error e) {
      abandon(tree, e);
      throw e;
    }
  }

  /** The spawned broker ended normally before we saw it serve: worth one more start. */
  static final class ExitedCleanly extends IOException {
    private static final long serialVersionUID = 1L;
    final long pid;

    ExitedCleanly(String message, long pid) {
      super(message);
      this.pid = pid;
    }
  }

  /** A broker that never became ready: end its tree, then let a read reclaim its record. */
  private void abandon(ProcessTree tree, Throwable why) {
    try {
      TerminationReport report = tree.terminate(STOP_GRACE); // identity-checked, ends in SIGKILL
      if (!report.noSurvivorSeen()) {
        why.addSuppressed(new IllegalStateException("broker tree survivors: " + report));
      }
      store.read(name); // owner proven gone: its record and artifacts are reclaimed
    } catch (IOException | RuntimeException e) {
      why.addSuppressed(e);
    }
  }
}
