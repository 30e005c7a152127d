package dev.lifecycle.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.broker.FaultReport;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of a worker JVM at a random moment of its life ({@code -Pfaults}): its job file is absent
 * or whole, says RUNNING with the owner proven gone (abandoned) or a terminal status, no temp file
 * survives the next write, and the supervisor ends the worker's tree completely.
 */
@Tag("faults")
class WorkerFaultCampaignTest {
  private static final ProcessPlatform OS = ProcessPlatform.get();

  @TempDir Path tmp;

  @Test
  @Timeout(value = 2, unit = TimeUnit.HOURS)
  void sigkillOfAWorkerAtRandomPhases() throws Exception {
    int trials = Integer.getInteger("faults.workerTrials", 50);
    Random random = new Random(Long.getLong("faults.seed", 17));
    List<String> failures = new ArrayList<>();
    int abandoned = 0;
    int absent = 0;
    int ended = 0;
    for (int trial = 0; trial < trials; trial++) {
      Path dir = Files.createDirectory(tmp.resolve("t" + trial));
      Path jobFile = dir.resolve("job");
      long delay = random.nextInt(1500);
      ProcessTree worker =
          ProcessTree.spawn(
              new ProcessBuilder(
                      Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                      "-XX:TieredStopAtLevel=1",
                      "-XX:+UseSerialGC",
                      "-cp",
                      System.getProperty("java.class.path"),
                      WorkerMain.class.getName(),
                      jobFile.toString(),
                      "60000",
                      "200",
                      Integer.toString(random.nextInt(1200)),
                      random.nextBoolean() ? "complete" : "fail")
                  .redirectOutput(Redirect.DISCARD)
                  .redirectError(Redirect.DISCARD));
      try {
        Thread.sleep(delay); // the random moment of the fault: a window, not a wait
        ProcessIdentity leader = worker.leaderIdentity();
        OS.signal(leader, Signal.KILL);
        worker.leader().waitFor(10, TimeUnit.SECONDS);
        TerminationReport report = worker.terminate(Duration.ofMillis(200));
        if (!report.noSurvivorSeen()) {
          failures.add("trial " + trial + ": tree not ended: " + report);
        }
        if (!Files.exists(jobFile)) {
          absent++;
          try {
            JobFile.inspect(jobFile, OS); // what a supervisor does: it also tidies a dead write
          } catch (java.nio.file.NoSuchFileException expected) {
            // No record was ever written.
          }
        } else {
          JobFile.JobState state = JobFile.inspect(jobFile, OS); // throws on a torn file
          if (state.record().status() == WorkerStatus.RUNNING) {
            if (!state.isAbandoned()) {
              failures.add("trial " + trial + ": RUNNING but owner not proven gone: " + state);
            }
            abandoned++;
          } else {
            ended++;
          }
          // The next writer sweeps what a killed one left mid-write.
          JobFile.write(dir.resolve("job"), state.record());
        }
        try (Stream<Path> files = Files.list(dir)) {
          List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
          if (!names.isEmpty() && !names.equals(List.of("job"))) {
            failures.add("trial " + trial + ": litter " + names);
          }
        }
      } catch (IOException e) {
        failures.add("trial " + trial + ": " + e);
      } finally {
        worker.terminate(Duration.ofMillis(100));
      }
    }
    String row =
        trials
            + " trials: job file absent "
            + absent
            + ", abandoned (RUNNING, owner gone) "
            + abandoned
            + ", ended before the kill "
            + ended
            + "; failures "
            + failures.size()
            + (failures.isEmpty() ? "" : "\n" + String.join("\n", failures));
    FaultReport.write("worker-sigkill", row);
    assertThat(failures).isEmpty();
  }
}
