package dev.lifecycle.broker;

import dev.lifecycle.record.RecordStore;
import dev.lifecycle.record.SessionRecord;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ordered steps of a broker's shutdown after its listener closed: connections, its own record
 * (compare-and-clear by token), its own files, then every backend tree (blocking, ends in SIGKILL).
 * A failing step is recorded and the pass goes on.
 */
final class ShutdownPass {
  private static final Logger LOG = LoggerFactory.getLogger(ShutdownPass.class);

  /** Steps of the shutdown pass, in order (observable by tests). */
  enum Step {
    LISTENER_CLOSED,
    CONNECTIONS_CLOSED,
    RECORD_CLEARED,
    ARTIFACTS_REMOVED,
    BACKENDS_TERMINATED
  }

  private final RecordStore store;
  private final String name;
  private final Duration backendGrace;
  private final Consumer<Step> observer;

  ShutdownPass(RecordStore store, String name, Duration backendGrace, Consumer<Step> observer) {
    this.store = store;
    this.name = name;
    this.backendGrace = backendGrace;
    this.observer = observer;
  }

  void step(Step step) {
    LOG.debug("broker {} shutdown: {}", name, step);
    observer.accept(step);
  }

  /**
   * Runs the steps after {@link Step#LISTENER_CLOSED}.
   *
   * @param backends read once the files are gone: adoption terminates late trees itself from then
   */
  ShutdownReport run(
      ShutdownReason why,
      long startedNanos,
      List<String> problems,
      List<Connection> open,
      SessionRecord mine,
      List<Path> ownFiles,
      Supplier<List<ProcessTree>> backends) {
    boolean cleared = false;
    List<Path> left = new ArrayList<>();
    List<TerminationReport> reports = new ArrayList<>();
    try {
      open.forEach(Connection::close);
      step(Step.CONNECTIONS_CLOSED);
      if (mine != null) {
        try {
          cleared = store.compareAndClear(name, mine.token());
        } catch (IOException | RuntimeException e) {
          problems.add("clearing the record: " + e);
        }
      }
      step(Step.RECORD_CLEARED);
      removeOwnFiles(ownFiles, left, problems);
      step(Step.ARTIFACTS_REMOVED);
      List<CompletableFuture<TerminationReport>> ending = new ArrayList<>();
      for (ProcessTree tree : backends.get()) {
        ending.add(tree.terminateAsync(backendGrace));
      }
      for (CompletableFuture<TerminationReport> end : ending) {
        try {
          reports.add(end.join());
        } catch (RuntimeException e) {
          problems.add("terminating a backend: " + e);
        }
      }
      step(Step.BACKENDS_TERMINATED);
    } catch (Throwable t) {
      problems.add("shutdown pass: " + t);
      LOG.error("broker {} shutdown pass failed", name, t);
    }
    return new ShutdownReport(
        why, cleared, left, reports, problems, Duration.ofNanos(System.nanoTime() - startedNanos));
  }

  /**
   * Removes the files this generation created, deepest first; never consults the record, which may
   * be a successor's.
   */
  static void removeOwnFiles(List<Path> ownFiles, List<Path> left, List<String> problems) {
    for (Path path : ownFiles) {
      try {
        Files.deleteIfExists(path);
      } catch (IOException e) {
        left.add(path);
        problems.add("removing " + path + ": " + e);
      }
    }
  }
}
