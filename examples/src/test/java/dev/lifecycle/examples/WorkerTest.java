package dev.lifecycle.examples;

import static dev.lifecycle.examples.Workspace.OS;
import static dev.lifecycle.examples.Workspace.poll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.examples.worker.ExampleWorker;
import dev.lifecycle.testkit.LifecycleAssertions;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeMember;
import dev.lifecycle.tree.TreeOptions;
import dev.lifecycle.worker.JobFile;
import dev.lifecycle.worker.Worker;
import dev.lifecycle.worker.WorkerStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example worker (seed-projects.md part B, scenarios 2, 4, 5). */
@NoProcessLeaks
@org.junit.jupiter.api.Timeout(90) // a hang fails the test instead of the build
class WorkerTest {
  @TempDir Path dir;

  private ProcessTree start(Path jobFile, long workMillis, boolean fail, String... options)
      throws Exception {
    return ProcessTree.spawn(
        OS,
        ExampleWorker.command(jobFile, Duration.ofMillis(workMillis), fail, List.of(options)),
        TreeOptions.defaults());
  }

  /** The helper (sleep ignoring SIGTERM) the job starts; waits for it, bounded. */
  private static TreeMember helper(ProcessTree worker) {
    assertThat(
            poll(
                Duration.ofSeconds(15),
                () -> worker.view().all().stream().anyMatch(m -> m.command().equals("sleep"))))
        .isTrue();
    return worker.view().all().stream()
        .filter(m -> m.command().equals("sleep"))
        .findFirst()
        .orElseThrow();
  }

  @Test
  @DisplayName("B2 B4 (demo c): expiry during the grace stays EXPIRED; the group is SIGKILLed")
  void expiryWinsOverCompletionDuringTheGrace() throws Exception {
    Path job = dir.resolve("jobs/late.job");
    try (ProcessTree worker =
        start(
            job,
            1500,
            false,
            "-Dlifecycle.worker.ceiling=800ms",
            "-Dlifecycle.worker.grace=1500ms")) {
      TreeMember helper = helper(worker);
      long t0 = System.nanoTime();
      LifecycleAssertions.assertThat(worker.leader())
          .exitsWithin(Duration.ofSeconds(20))
          .withExitCode(Worker.EXPIRED_EXIT_CODE);
      // The worker survived its own group's SIGTERM for the grace (the job completed meanwhile),
      // then SIGKILLed the group: the TERM-ignoring helper is gone.
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThan(Duration.ofMillis(1000));
      LifecycleAssertions.assertThatPids(List.of(helper.pid())).areAllGone(Duration.ofSeconds(5));
      JobFile.JobState state = JobFile.inspect(job);
      assertThat(state.record().status()).isEqualTo(WorkerStatus.EXPIRED);
      assertThat(state.record().reason()).contains("ceiling");
    }
  }

  @Test
  @DisplayName("B4: a job that ends before its ceiling is COMPLETED or FAILED, exit 0 or 1")
  void completedAndFailed() throws Exception {
    Path ok = dir.resolve("ok.job");
    Path bad = dir.resolve("bad.job");
    try (ProcessTree a = start(ok, 100, false, "-Dlifecycle.worker.ceiling=30s");
        ProcessTree b = start(bad, 100, true, "-Dlifecycle.worker.ceiling=30s")) {
      LifecycleAssertions.assertThat(a.leader())
          .exitsWithin(Duration.ofSeconds(20))
          .withExitCode(0);
      LifecycleAssertions.assertThat(b.leader())
          .exitsWithin(Duration.ofSeconds(20))
          .withExitCode(ExampleWorker.FAILED_EXIT_CODE);
      assertThat(JobFile.inspect(ok).record().status()).isEqualTo(WorkerStatus.COMPLETED);
      assertThat(JobFile.inspect(bad).record().status()).isEqualTo(WorkerStatus.FAILED);
      assertThat(JobFile.inspect(bad).record().reason()).contains("on purpose");
    }
  }

  @Test
  @DisplayName("B5: the job file's directory gone at expiry does not prevent the kill")
  void bookkeepingFailureDoesNotPreventTheKill() throws Exception {
    Path jobs = dir.resolve("jobs");
    Path job = jobs.resolve("doomed.job");
    try (ProcessTree worker =
        start(
            job,
            60_000,
            false,
            "-Dlifecycle.worker.ceiling=1s",
            "-Dlifecycle.worker.grace=300ms")) {
      TreeMember helper = helper(worker);
      // Replace the directory by a plain file: every write fails, even for root.
      Files.delete(job);
      Files.delete(jobs);
      Files.writeString(jobs, "not a directory");
      LifecycleAssertions.assertThat(worker.leader())
          .exitsWithin(Duration.ofSeconds(20))
          .withExitCode(Worker.EXPIRED_EXIT_CODE);
      LifecycleAssertions.assertThatPids(List.of(helper.pid())).areAllGone(Duration.ofSeconds(5));
    }
  }
}
