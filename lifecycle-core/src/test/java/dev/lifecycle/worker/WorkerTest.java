package dev.lifecycle.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.guard.watchdog.Watchdog;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.ManualScheduler;
import dev.lifecycle.time.Limit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The latch and its ordering, in virtual time: no real process is signalled here. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WorkerTest {
  private static final Duration CEILING = Duration.ofMillis(300);

  @TempDir Path dir;
  private Path file;
  private final ManualScheduler scheduler = new ManualScheduler();

  /** What the job file said at the moment the terminator was called, one entry per call. */
  private final List<WorkerStatus> terminatedWithFile = new CopyOnWriteArrayList<>();

  @BeforeEach
  void jobFile() {
    file = dir.resolve("job.properties");
  }

  private Worker.Builder builder() {
    return builder(file);
  }

  private Worker.Builder builder(Path file) {
    return Worker.builder()
        .jobFile(file)
        .ceiling(Limit.of(CEILING))
        .scheduler(scheduler)
        .platform(ProcessPlatform.jdk())
        .config(name -> null, name -> null)
        .terminator(
            beforeKill -> {
              terminatedWithFile.add(statusIn(file));
              beforeKill.run();
            });
  }

  private static WorkerStatus statusIn(Path file) {
    try {
      return JobFile.read(file).status();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void completionBeforeTheCeilingLatchesCompletedAndCancelsIt() throws Exception {
    Worker worker = builder().jobId("build").start();
    assertThat(JobFile.read(file).status()).isEqualTo(WorkerStatus.RUNNING);
    assertThat(scheduler.pending()).isEqualTo(1);

    assertThat(worker.run(() -> {})).isEqualTo(WorkerStatus.COMPLETED);

    assertThat(scheduler.pending()).isZero();
    scheduler.advance(CEILING.multipliedBy(10));
    JobRecord record = JobFile.read(file);
    assertThat(record.status()).isEqualTo(WorkerStatus.COMPLETED);
    assertThat(record.jobId()).isEqualTo("build");
    assertThat(record.owner()).isEqualTo(ProcessPlatform.jdk().self());
    assertThat(record.endedAt()).isAfterOrEqualTo(record.startedAt());
    assertThat(record.ceiling()).isEqualTo(Limit.of(CEILING));
    assertThat(terminatedWithFile).isEmpty();
  }

  @Test
  void expiryIsPersistedBeforeTheTreeIsEndedAndACompletionDuringTheGraceLoses() throws Exception {
    Worker worker = builder().start();

    WorkerStatus result =
        worker.run(
            () -> {
              scheduler.advance(CEILING); // the ceiling elapses while the job runs
              assertThat(worker.status()).isEqualTo(WorkerStatus.EXPIRED);
            }); // ...and then the job completes

    assertThat(result).isEqualTo(WorkerStatus.EXPIRED);
    assertThat(worker.complete()).isFalse();
    assertThat(worker.fail("late")).isFalse();
    assertThat(terminatedWithFile).containsExactly(WorkerStatus.EXPIRED);
    JobRecord record = JobFile.read(file);
    assertThat(record.status()).isEqualTo(WorkerStatus.EXPIRED);
    assertThat(record.reason()).contains("ceiling");
  }

  @Test
  void aFailingJobEndsFailedWithItsReason() throws Exception {
    Worker worker = builder().start();

    WorkerStatus result =
        worker.run(
            () -> {
              throw new IllegalStateException("disk on fire");
            });

    assertThat(result).isEqualTo(WorkerStatus.FAILED);
    assertThat(JobFile.read(file).reason()).contains("disk on fire");
    assertThat(scheduler.pending()).isZero();
    scheduler.advance(CEILING.multipliedBy(2));
    assertThat(terminatedWithFile).isEmpty();
  }

  @Test
  void aDisabledCeilingSchedulesNothingAndNeverFires() throws Exception {
    Worker worker = builder().ceiling(Limit.disabled()).start();

    scheduler.advance(Limit.MAX);

    assertThat(scheduler.scheduled().size()).isZero();
    assertThat(worker.status()).isEqualTo(WorkerStatus.RUNNING);
    assertThat(JobFile.read(file).ceiling().isEnabled()).isFalse();
    assertThat(worker.complete()).isTrue();
    assertThat(terminatedWithFile).isEmpty();
  }

  @Test
  void aTreePastItsProcessCeilingIsBreachedRecordedThenEnded() throws Exception {
    Worker worker = builder().ceilings(Ceilings.none().withProcesses(1)).start();
    Process child = new ProcessBuilder("sleep", "60").start(); // this JVM and its child: 2 > 1
    try {
      Await.until(Duration.ofSeconds(30), "the breach", () -> !terminatedWithFile.isEmpty());
      assertThat(terminatedWithFile).containsExactly(WorkerStatus.BREACHED);
      assertThat(worker.status()).isEqualTo(WorkerStatus.BREACHED);
      JobRecord record = JobFile.read(file);
      assertThat(record.status()).isEqualTo(WorkerStatus.BREACHED);
      assertThat(record.reason()).startsWith("breached processes: ").contains("> limit 1");
      assertThat(scheduler.pending()).as("the wall-clock ceiling is cancelled").isZero();
      assertThat(worker.complete()).isFalse();
    } finally {
      child.destroyForcibly().waitFor();
    }
  }

  @Test
  void configuredCeilingsAreReadFromTheSameSourcesAsTheCeiling() throws Exception {
    Map<String, String> env = Map.of(Worker.CEILINGS_ENV_PREFIX + "_PROCESSES", "1");
    Worker worker = builder().config(name -> null, env::get).start();
    Process child = new ProcessBuilder("sleep", "60").start(); // this JVM and its child: 2 > 1
    try {
      Await.until(Duration.ofSeconds(30), "the breach", () -> !terminatedWithFile.isEmpty());
      assertThat(JobFile.read(file).reason()).startsWith("breached processes: ");
    } finally {
      child.destroyForcibly().waitFor();
    }
  }

  @Test
  void withoutCeilingsNothingIsWatched() throws Exception {
    int before = Watchdog.shared().watchedCount();
    Worker worker = builder().ceilings(Ceilings.none()).start();
    assertThat(Watchdog.shared().watchedCount()).isEqualTo(before);
    assertThat(worker.run(() -> {})).isEqualTo(WorkerStatus.COMPLETED);
  }

  @Test
  void closingARunningWorkerFailsIt() throws Exception {
    try (Worker worker = builder().start()) {
      assertThat(worker.status()).isEqualTo(WorkerStatus.RUNNING);
    }
    assertThat(JobFile.read(file).status()).isEqualTo(WorkerStatus.FAILED);
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void codeWinsThenPropertyThenEnvironmentThenDefaultAndTyposFallBack() throws Exception {
    Map<String, String> env = Map.of(Worker.CEILING_ENV, "2h", Worker.GRACE_ENV, "7s");
    Map<String, String> props = Map.of(Worker.CEILING_PROPERTY, "0");

    Worker fromCode =
        unconfigured(dir.resolve("a"))
            .config(props::get, env::get)
            .ceiling(Limit.ofHours(1))
            .start();
    assertThat(fromCode.record().ceiling()).isEqualTo(Limit.ofHours(1));

    Worker fromProperty = unconfigured(dir.resolve("b")).config(props::get, env::get).start();
    assertThat(fromProperty.record().ceiling().isEnabled()).isFalse();

    Worker fromEnv = unconfigured(dir.resolve("c")).config(name -> null, env::get).start();
    assertThat(fromEnv.record().ceiling()).isEqualTo(Limit.ofHours(2));

    Worker byDefault = unconfigured(dir.resolve("d")).config(name -> null, name -> null).start();
    assertThat(byDefault.record().ceiling()).isEqualTo(Worker.DEFAULT_CEILING);

    Map<String, String> typo = Map.of(Worker.CEILING_PROPERTY, "2 hours");
    Worker fallback = unconfigured(dir.resolve("e")).config(typo::get, env::get).start();
    assertThat(fallback.record().ceiling()).isEqualTo(Limit.ofHours(2));
  }

  /** {@link #builder} without a ceiling set in code, so configuration decides it. */
  private Worker.Builder unconfigured(Path file) {
    return Worker.builder()
        .jobFile(file)
        .scheduler(scheduler)
        .platform(ProcessPlatform.jdk())
        .terminator(Runnable::run);
  }

  /**
   * Expiry against completions and failures from many threads at once, in both orders: exactly one
   * latch wins, the file says what won, and the tree is ended exactly when EXPIRED won, with the
   * file already saying so.
   */
  @Test
  void exactlyOneOutcomeWinsAnyRace() throws Exception {
    int threads = 6;
    AtomicInteger expired = new AtomicInteger();
    for (int round = 0; round < 150; round++) {
      terminatedWithFile.clear();
      Path file = dir.resolve("race-" + round);
      Worker worker = builder(file).start();
      CyclicBarrier start = new CyclicBarrier(threads + 1);
      AtomicInteger wins = new AtomicInteger();
      List<Thread> racers = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        boolean completes = i % 2 == 0;
        racers.add(
            new Thread(
                () -> {
                  await(start);
                  if (completes ? worker.complete() : worker.fail("racer")) {
                    wins.incrementAndGet();
                  }
                }));
      }
      racers.forEach(Thread::start);
      await(start);
      scheduler.advance(CEILING);
      for (Thread t : racers) {
        t.join();
      }
      WorkerStatus status = worker.status();
      if (status == WorkerStatus.EXPIRED) {
        expired.incrementAndGet();
        worker.run(() -> {}); // returns once the (fake) self-termination has run
        assertThat(wins).hasValue(0);
        assertThat(terminatedWithFile).containsExactly(WorkerStatus.EXPIRED);
      } else {
        assertThat(wins).hasValue(1);
        assertThat(terminatedWithFile).isEmpty();
      }
      assertThat(JobFile.read(file).status()).isEqualTo(status);
    }
    System.out.println("expiry won " + expired + " of 150 races");
  }

  @Test
  void readersSeeTheOwnerAliveOrProvenGone() throws Exception {
    builder().start();
    ProcessPlatform jdk = ProcessPlatform.jdk();
    assertThat(JobFile.inspect(file, jdk).owner()).isEqualTo(Liveness.ALIVE);
    assertThat(JobFile.inspect(file, jdk).isAbandoned()).isFalse();

    // The same pid, another start time: the owner is gone and the pid reused.
    ProcessIdentity self = jdk.self();
    JobRecord was = JobFile.read(file);
    JobRecord reused =
        new JobRecord(
            was.jobId(),
            WorkerStatus.RUNNING,
            new ProcessIdentity(self.pid(), self.startTime() + 1, self.bootId()),
            was.startedAt(),
            null,
            was.ceiling(),
            "");
    JobFile.write(file, reused);
    assertThat(JobFile.inspect(file, jdk).isAbandoned()).isTrue();
  }

  @Test
  void corruptAndNewerFilesAreRejected() throws Exception {
    Files.writeString(file, "format=lifecycle-job\nversion=2\n");
    assertThatThrownBy(() -> JobFile.read(file)).hasMessageContaining("version 2");
    Files.writeString(file, "format=lifecycle-job\nversion=1\nstatus=DONE\n");
    assertThatThrownBy(() -> JobFile.read(file)).isInstanceOf(IOException.class);
    Files.writeString(file, "hello");
    assertThatThrownBy(() -> JobFile.read(file)).hasMessageContaining("not a job file");
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
