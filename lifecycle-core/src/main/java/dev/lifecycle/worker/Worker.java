package dev.lifecycle.worker;

import dev.lifecycle.guard.Breach;
import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.internal.Durations;
import dev.lifecycle.internal.Lifecycle;
import dev.lifecycle.internal.Setting;
import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.time.Guards;
import dev.lifecycle.time.Limit;
import dev.lifecycle.time.TimerHandle;
import dev.lifecycle.time.TimerScheduler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A detached background job with a wall-clock ceiling: a runaway guard, not a task deadline. The
 * job's status is latched exactly once (compare-and-set from {@link WorkerStatus#RUNNING}) and
 * persisted to a {@link JobFile}. Thread-safe: whichever thread completes, fails or expires the
 * job, the status latches once.
 *
 * <pre>{@code
 * try (Worker worker = Worker.builder().jobFile(jobFile).ceiling(Limit.ofHours(24)).start()) {
 *   WorkerStatus status = worker.run(() -> index(repository)); // COMPLETED, FAILED or EXPIRED
 * }
 * }</pre>
 *
 * <p>Ordering on expiry: the timer latches {@link WorkerStatus#EXPIRED} in memory first, so a
 * completion or failure that arrives later (typically during the grace, while the job still runs
 * through the SIGTERM sent to its tree) loses the compare-and-set and writes nothing. A thread of
 * its own (not the shared timer thread, and not a daemon, so the JVM cannot exit early) then
 * persists EXPIRED and only then ends this JVM's own tree with {@link
 * dev.lifecycle.tree.SelfTermination}: TERM to every other member, the grace, KILL, and exit with
 * {@link #EXPIRED_EXIT_CODE}. If persisting fails it is retried just before the KILL; bookkeeping
 * never stops the kill. A completion that arrives first latches {@link WorkerStatus#COMPLETED} and
 * cancels the ceiling.
 *
 * <p>With {@link Builder#ceilings ceilings} (in code, else {@link #configuredCeilings()}; none by
 * default) the runaway guard's watchdog samples the worker's own tree: this JVM, its session or
 * group when it leads one, and every descendant. A breach latches {@link WorkerStatus#BREACHED}
 * with the breach as the record's reason, then ends the tree the same way as an expiry.
 *
 * <p>The ceiling runs on the monotonic clock of the {@link TimerScheduler} (System.nanoTime, i.e.
 * CLOCK_MONOTONIC on Linux): time the machine spends suspended does not count. The job file records
 * wall-clock timestamps. Self-termination needs this JVM to lead its own process group or session
 * (start workers as a {@code ProcessTree}); otherwise only its descendants are ended.
 *
 * <p>Configuration, with the precedence of every lifecycle setting: the builder's ceiling and grace
 * when set, else the system properties {@value #CEILING_PROPERTY} / {@value #GRACE_PROPERTY}, else
 * the environment variables {@value #CEILING_ENV} / {@value #GRACE_ENV}, else {@link
 * #DEFAULT_CEILING} / {@link #DEFAULT_GRACE} ({@link Limit#parse} grammar, bare numbers are
 * milliseconds, {@code 0} disables the ceiling; an unusable value is logged and the next source
 * down is used).
 */
public final class Worker implements AutoCloseable {
  /** System property that overrides the ceiling. */
  public static final String CEILING_PROPERTY = "lifecycle.worker.ceiling";

  /** Environment variable that overrides the ceiling when the property is unset. */
  public static final String CEILING_ENV = "LIFECYCLE_WORKER_CEILING";

  /** System property that overrides the grace. */
  public static final String GRACE_PROPERTY = "lifecycle.worker.grace";

  /** Environment variable that overrides the grace when the property is unset. */
  public static final String GRACE_ENV = "LIFECYCLE_WORKER_GRACE";

  /** 24 hours: far beyond any sane job, short of days-old orphans holding tens of gigabytes. */
  public static final Limit DEFAULT_CEILING = Limit.ofHours(24);

  /** 5 seconds from SIGTERM to SIGKILL, as for any tree. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);

  /**
   * Prefix of the system properties that set the ceilings of worker trees ({@code
   * lifecycle.worker.memory}, {@code .processes}, {@code .cpu}, {@code .cpu.window}, {@code .spin},
   * {@code .spin.window}; {@link Ceilings#fromConfig}). Not to be confused with the wall-clock
   * {@value #CEILING_PROPERTY}.
   */
  public static final String CEILINGS_PROPERTY_PREFIX = "lifecycle.worker";

  /** Prefix of the environment variables that set the ceilings of worker trees. */
  public static final String CEILINGS_ENV_PREFIX = "LIFECYCLE_WORKER";

  /**
   * The configured ceilings for worker trees: what a worker watches its own tree against when its
   * builder sets none (a program that starts workers as {@code ProcessTree}s may also pass them to
   * {@code TreeOptions.withCeilings}). Off unless configured.
   *
   * @return the ceilings from {@value #CEILINGS_PROPERTY_PREFIX}{@code .*} and {@value
   *     #CEILINGS_ENV_PREFIX}{@code _*}, else {@link Ceilings#none()}
   */
  public static Ceilings configuredCeilings() {
    return Ceilings.fromConfig(CEILINGS_PROPERTY_PREFIX, CEILINGS_ENV_PREFIX, Ceilings.none());
  }

  private static final Setting<Limit> CEILING =
      Setting.of(CEILING_PROPERTY, CEILING_ENV, DEFAULT_CEILING, Limit::parse);
  private static final Setting<Duration> GRACE =
      Setting.duration(GRACE_PROPERTY, GRACE_ENV, DEFAULT_GRACE);

  /**
   * The exit status of a worker that outlived its ceiling or breached one of its tree's ceilings:
   * 124, as coreutils {@code timeout}.
   */
  public static final int EXPIRED_EXIT_CODE = 124;

  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

  private final Path file;
  private final JobWriter writer;
  private final Clock clock;
  private final Terminator terminator;
  // Reason = the latched outcome; report = the ended record, once its ending is done.
  private final Lifecycle<WorkerStatus, JobRecord> life = new Lifecycle<>();
  private volatile JobRecord record;

  private Worker(Path file, JobRecord running, Clock clock, Terminator terminator) {
    this.file = file;
    this.writer = new JobWriter(file);
    this.record = running;
    this.clock = clock;
    this.terminator = terminator;
    life.start();
  }

  /**
   * A builder for a worker; the job file must be set.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** The job as a body that may throw; see {@link #run(Job)}. */
  @FunctionalInterface
  public interface Job {
    /**
     * Does the job's work.
     *
     * @throws Exception to fail the job: the worker latches FAILED with it as the reason
     */
    void run() throws Exception;
  }

  /**
   * Runs {@code job} on the calling thread and latches its outcome: COMPLETED when it returns,
   * FAILED when it throws (the failure is logged and recorded, not rethrown). If the ceiling
   * expired or the tree breached one of its ceilings first, this call does not return: it waits for
   * the self-termination, which ends the JVM.
   *
   * @param job the work, run on the calling thread
   * @return the latched terminal status
   */
  public WorkerStatus run(Job job) {
    Objects.requireNonNull(job, "job");
    Throwable failure = null;
    try {
      job.run();
    } catch (Throwable t) {
      failure = t;
    }
    if (failure == null) {
      complete();
    } else {
      fail(failure);
    }
    return life.awaitReport().status(); // after an expiry the JVM exits before this returns
  }

  /**
   * Latches COMPLETED, cancels the ceiling and persists the record.
   *
   * @return whether this call latched it (false if the job had already ended, e.g. EXPIRED)
   * @throws UncheckedIOException if the record could not be written (the latch holds regardless)
   */
  public boolean complete() {
    return latch(WorkerStatus.COMPLETED, "");
  }

  /**
   * Latches FAILED with {@code cause} as the reason; see {@link #complete()}.
   *
   * @param cause why the job failed; logged, and its text recorded as the reason
   * @return whether this call latched it
   */
  public boolean fail(Throwable cause) {
    LOG.warn("job {} failed", record.jobId(), cause);
    return latch(WorkerStatus.FAILED, String.valueOf(cause));
  }

  /**
   * Latches FAILED with {@code reason}; see {@link #complete()}.
   *
   * @param reason why the job failed, recorded as is
   * @return whether this call latched it
   */
  public boolean fail(String reason) {
    return latch(WorkerStatus.FAILED, Objects.requireNonNull(reason, "reason"));
  }

  /**
   * The latched status.
   *
   * @return {@link WorkerStatus#RUNNING} until an outcome is latched, then that outcome
   */
  public WorkerStatus status() {
    return life.reason().orElse(WorkerStatus.RUNNING);
  }

  /**
   * The record as last latched (it may still be on its way to the file).
   *
   * @return the last record this worker built
   */
  public JobRecord record() {
    return record;
  }

  /**
   * The file this worker persists its job record in.
   *
   * @return the builder's job file
   */
  public Path jobFile() {
    return file;
  }

  /** Fails a job that is still running ("closed before the job ended"); else does nothing. */
  @Override
  public void close() {
    latch(WorkerStatus.FAILED, "worker closed before the job ended");
  }

  private boolean latch(WorkerStatus to, String reason) {
    JobRecord ended = end(to, reason);
    if (ended == null) {
      return false;
    }
    try {
      writer.write(ended);
    } catch (IOException e) {
      throw new UncheckedIOException("job " + ended.jobId() + " ended " + to + "; not recorded", e);
    } finally {
      life.complete(ended);
    }
    return true;
  }

  /** Latches {@code to} (cancelling the ceiling and the watch); null if another outcome won. */
  private JobRecord end(WorkerStatus to, String reason) {
    if (!life.stop(to)) {
      return null;
    }
    JobRecord ended = record.end(to, clock.instant(), reason);
    record = ended;
    return ended;
  }

  /** On the timer or the watchdog's thread: latch, then end the tree on a thread of its own. */
  private void endTree(WorkerStatus to, String reason) {
    JobRecord ended = end(to, reason);
    if (ended != null) {
      // Not a daemon: the JVM must not exit (status 0) before the tree is down.
      Threads.startKeepingJvm(
          "lifecycle-worker-" + to.name().toLowerCase(Locale.ROOT),
          () -> {
            try {
              terminator.endTree(ended, writer);
            } finally {
              life.complete(ended);
            }
          });
    }
  }

  /** Builds and starts a {@link Worker}. */
  public static final class Builder {
    private Path jobFile;
    private String jobId;
    private Optional<Limit> ceiling = Optional.empty();
    private Optional<Duration> grace = Optional.empty();
    private Ceilings ceilings;
    private int exitCode = EXPIRED_EXIT_CODE;
    private ProcessPlatform platform;
    private TimerScheduler scheduler = TimerScheduler.system();
    private Clock clock = Clock.systemUTC();
    private Function<String, String> properties = System::getProperty;
    private Function<String, String> environment = System::getenv;
    private Terminator terminator;

    private Builder() {}

    /**
     * Where the job record lives (required); its directory is created 0700 if absent.
     *
     * @param value the job record's file
     * @return this builder
     */
    public Builder jobFile(Path value) {
      jobFile = Objects.requireNonNull(value, "jobFile");
      return this;
    }

    /**
     * The job's name in the record; default the job file's name.
     *
     * @param value the job's name
     * @return this builder
     */
    public Builder jobId(String value) {
      jobId = Objects.requireNonNull(value, "jobId");
      return this;
    }

    /**
     * The ceiling; without it, the configured ceiling or {@link #DEFAULT_CEILING}.
     *
     * @param value the longest the job may run; disabled lets it run forever
     * @return this builder
     */
    public Builder ceiling(Limit value) {
      ceiling = Optional.of(Objects.requireNonNull(value, "ceiling"));
      return this;
    }

    /**
     * SIGTERM-to-SIGKILL grace on expiry; without it, the configured grace or 5 s.
     *
     * @param value the grace, not negative
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public Builder grace(Duration value) {
      grace = Optional.of(Durations.nonNegative(value, "grace"));
      return this;
    }

    /**
     * The ceilings the watchdog holds this worker's own tree to; without it, {@link
     * #configuredCeilings()}. Their handler decides as for any tree: a breach it does not keep
     * latches {@link WorkerStatus#BREACHED} and ends the tree.
     *
     * @param value the ceilings; {@link Ceilings#none()} watches nothing
     * @return this builder
     */
    public Builder ceilings(Ceilings value) {
      ceilings = Objects.requireNonNull(value, "ceilings");
      return this;
    }

    /**
     * The JVM's exit status after expiry or a breach; default {@link #EXPIRED_EXIT_CODE}.
     *
     * @param value the exit status
     * @return this builder
     */
    public Builder exitCode(int value) {
      exitCode = value;
      return this;
    }

    /**
     * Default {@link ProcessPlatform#get()}.
     *
     * @param value the platform that ends this JVM's tree on expiry
     * @return this builder
     */
    public Builder platform(ProcessPlatform value) {
      platform = Objects.requireNonNull(value, "platform");
      return this;
    }

    /**
     * The monotonic scheduler of the ceiling; default {@link TimerScheduler#system()}.
     *
     * @param value the scheduler
     * @return this builder
     */
    public Builder scheduler(TimerScheduler value) {
      scheduler = Objects.requireNonNull(value, "scheduler");
      return this;
    }

    Builder clock(Clock value) {
      clock = value;
      return this;
    }

    Builder config(Function<String, String> systemProperties, Function<String, String> env) {
      properties = systemProperties;
      environment = env;
      return this;
    }

    Builder terminator(Terminator value) {
      terminator = value;
      return this;
    }

    /**
     * Records the job as RUNNING (owner = this JVM), then arms the ceiling and watches the tree's
     * ceilings.
     *
     * @return the running worker, its ceiling armed
     * @throws IOException if the job file cannot be written: nothing is armed then
     */
    public Worker start() throws IOException {
      Objects.requireNonNull(jobFile, "jobFile");
      ProcessPlatform p = platform != null ? platform : ProcessPlatform.get();
      Limit effective = CEILING.resolve(ceiling, properties, environment);
      Duration effectiveGrace = GRACE.resolve(grace, properties, environment);
      Terminator t =
          terminator != null ? terminator : Terminator.selfTermination(p, effectiveGrace, exitCode);
      JobRecord running =
          new JobRecord(
              jobId != null ? jobId : jobFile.getFileName().toString(),
              WorkerStatus.RUNNING,
              p.self(),
              clock.instant(),
              null,
              effective,
              "");
      Worker worker = new Worker(jobFile, running, clock, t);
      worker.writer.write(running);
      String expired = "exceeded its ceiling of " + effective;
      TimerHandle timer =
          Guards.arm(effective, () -> worker.endTree(WorkerStatus.EXPIRED, expired), scheduler);
      worker.life.guard(timer::cancel);
      Ceilings own =
          ceilings != null
              ? ceilings
              : Ceilings.fromConfig(
                  CEILINGS_PROPERTY_PREFIX,
                  CEILINGS_ENV_PREFIX,
                  Ceilings.none(),
                  properties,
                  environment);
      if (own.anyEnabled()) {
        Consumer<Breach> breached = b -> worker.endTree(WorkerStatus.BREACHED, "breached " + b);
        worker.life.guard(OwnTree.watch(p, own, running.jobId(), breached)::close);
      }
      return worker;
    }
  }
}
