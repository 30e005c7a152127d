package dev.lifecycle.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.tether.Procs;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeOptions;
import java.io.BufferedReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workers in child JVMs spawned as trees (so each leads its own session, as a detached worker
 * does): the latch, the job file, the self-termination and the exit code, for real.
 */
@NoProcessLeaks
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WorkerProcessTest {
  @TempDir Path dir;
  private final Procs procs = new Procs();
  private final List<ProcessTree> trees = new ArrayList<>();

  @AfterEach
  void killEverythingStarted() {
    procs.close();
    trees.forEach(tree -> tree.terminate(Duration.ZERO));
  }

  @Test
  void aJobThatCompletesDuringTheGraceStillEndsExpired() throws Exception {
    // Ceiling 300 ms, grace 1500 ms (the member ignores SIGTERM, so all of it is used), and the
    // job completes at 900 ms: after the expiry, inside the grace.
    Run run = worker(Map.of(), "300", "1500", "900", "complete");

    assertThat(run.tree.leader().waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(run.tree.leader().exitValue()).isEqualTo(Worker.EXPIRED_EXIT_CODE);
    assertThat(run.rest()).containsExactly("JOB DONE"); // ran to its end; run() never returned
    JobRecord record = JobFile.read(run.file);
    assertThat(record.status()).isEqualTo(WorkerStatus.EXPIRED);
    assertThat(record.reason()).contains("ceiling");
    Procs.awaitAllGone(Duration.ofSeconds(5), List.of(run.member, run.jvm));
    assertThat(JobFile.inspect(run.file).owner().mayBeRunning()).isFalse();
  }

  @Test
  void aJobThatCompletesBeforeTheCeilingEndsCompletedAndExitsNormally() throws Exception {
    Run run = worker(Map.of(), "10000", "1500", "100", "complete");

    assertThat(run.tree.leader().waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(run.tree.leader().exitValue()).isZero();
    assertThat(run.rest()).containsExactly("JOB DONE", "RESULT COMPLETED");
    assertThat(JobFile.read(run.file).status()).isEqualTo(WorkerStatus.COMPLETED);
  }

  @Test
  void aFailingJobEndsFailed() throws Exception {
    Run run = worker(Map.of(), "10000", "1500", "100", "fail");

    assertThat(run.tree.leader().waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(run.tree.leader().exitValue()).isEqualTo(3);
    assertThat(run.rest()).containsExactly("JOB DONE", "RESULT FAILED");
    JobRecord record = JobFile.read(run.file);
    assertThat(record.status()).isEqualTo(WorkerStatus.FAILED);
    assertThat(record.reason()).contains("job fails on purpose");
  }

  @Test
  void aCeilingDisabledByTheEnvironmentNeverFires() throws Exception {
    // The code sets no ceiling; LIFECYCLE_WORKER_CEILING=0 disables the 24 h default; the job
    // takes 1 s.
    Run run = worker(Map.of(Worker.CEILING_ENV, "0"), "-", "1500", "1000", "complete");

    assertThat(run.tree.leader().waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(run.tree.leader().exitValue()).isZero();
    assertThat(run.rest()).containsExactly("JOB DONE", "RESULT COMPLETED");
    JobRecord record = JobFile.read(run.file);
    assertThat(record.status()).isEqualTo(WorkerStatus.COMPLETED);
    assertThat(record.ceiling().isEnabled()).isFalse();
  }

  @Test
  void aJobThatSpinsPastItsTreesSpinRuleEndsBreachedWithTheBreachRecorded() throws Exception {
    // A low share: on a loaded machine the spinner gets a fraction of a core.
    Run run =
        worker(
            Map.of(ceilingsEnv("SPIN"), "0.05", ceilingsEnv("SPIN_WINDOW"), "2s"),
            "-",
            "300",
            "60000",
            "spin");
    List<ProcessIdentity> children = children(run, 1);

    assertThat(run.tree.leader().waitFor(40, TimeUnit.SECONDS)).isTrue();
    assertThat(run.tree.leader().exitValue()).isEqualTo(Worker.EXPIRED_EXIT_CODE);
    assertThat(run.rest()).isEmpty(); // the job never ended; run() never returned
    JobRecord record = JobFile.read(run.file);
    assertThat(record.status()).isEqualTo(WorkerStatus.BREACHED);
    assertThat(record.reason()).startsWith("breached spin: ").contains("limit 0.05 for 2.0 s");
    Procs.awaitAllGone(Duration.ofSeconds(5), children);
    Procs.awaitAllGone(Duration.ofSeconds(5), List.of(run.member, run.jvm));
  }

  @Test
  void aJobThatForksPastItsTreesProcessCeilingEndsBreached() throws Exception {
    // The JVM, the member shell and its sleep are 3; the job's ten sleeps take the tree to 13.
    Run run = worker(Map.of(ceilingsEnv("PROCESSES"), "6"), "-", "300", "60000", "fork");
    List<ProcessIdentity> children = children(run, 10);

    assertThat(run.tree.leader().waitFor(40, TimeUnit.SECONDS)).isTrue();
    assertThat(run.tree.leader().exitValue()).isEqualTo(Worker.EXPIRED_EXIT_CODE);
    JobRecord record = JobFile.read(run.file);
    assertThat(record.status()).isEqualTo(WorkerStatus.BREACHED);
    assertThat(record.reason()).startsWith("breached processes: ").contains("> limit 6");
    Procs.awaitAllGone(Duration.ofSeconds(5), children);
    Procs.awaitAllGone(Duration.ofSeconds(5), List.of(run.member, run.jvm));
  }

  private static String ceilingsEnv(String suffix) {
    return Worker.CEILINGS_ENV_PREFIX + "_" + suffix;
  }

  /** Reads and tracks the job's {@code CHILD <pid>} lines. */
  private List<ProcessIdentity> children(Run run, int count) throws Exception {
    List<ProcessIdentity> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String line = Procs.readLine(run.out, Duration.ofSeconds(30));
      assertThat(line).startsWith("CHILD ");
      out.add(procs.track(Long.parseLong(line.substring(6))));
    }
    return out;
  }

  private record Run(
      ProcessTree tree,
      Path file,
      ProcessIdentity jvm,
      ProcessIdentity member,
      BufferedReader out) {
    /** Every line the worker printed after MEMBER, up to its exit. */
    List<String> rest() {
      return out.lines().toList();
    }
  }

  private Run worker(Map<String, String> env, String ceiling, String grace, String job, String end)
      throws Exception {
    ProcessPlatform platform = ProcessPlatform.get();
    assumeTrue(platform.capabilities().newSession(), "needs spawning into a new session");
    assumeTrue(ProcFs.isAvailable(), "identities through /proc");
    Path file = dir.resolve("job.properties");
    ProcessBuilder builder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                WorkerMain.class.getName(),
                file.toString(),
                ceiling,
                grace,
                job,
                end)
            .redirectError(Redirect.INHERIT);
    builder.environment().remove(Worker.CEILING_ENV);
    builder.environment().remove(Worker.GRACE_ENV);
    builder.environment().keySet().removeIf(k -> k.startsWith(Worker.CEILINGS_ENV_PREFIX + "_"));
    builder.environment().putAll(env);
    ProcessTree tree = ProcessTree.spawn(platform, builder, TreeOptions.defaults());
    trees.add(tree);
    ProcessIdentity jvm = procs.track(tree.leader().pid());
    BufferedReader out = Procs.stdout(tree.leader());
    String line = Procs.readLine(out, Duration.ofSeconds(30));
    assertThat(line).startsWith("MEMBER ");
    ProcessIdentity member = procs.track(Long.parseLong(line.substring(7)));
    return new Run(tree, file, jvm, member, out);
  }
}
