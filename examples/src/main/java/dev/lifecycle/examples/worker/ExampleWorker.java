package dev.lifecycle.examples.worker;

import dev.lifecycle.examples.broker.BrokerCommand;
import dev.lifecycle.time.Limit;
import dev.lifecycle.worker.Worker;
import dev.lifecycle.worker.WorkerStatus;
import java.io.File;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A detached background job with a wall-clock ceiling. The job runs a helper process that ignores
 * SIGTERM (a tool the job shells out to), works for a while, and then completes or fails. The
 * {@link Worker} records the outcome in the job file: COMPLETED, FAILED, or EXPIRED when the
 * ceiling passes first. Expiry is latched before anything is signalled, so a job that finishes
 * during the grace stays EXPIRED; the worker then ends its own tree (the helper included, by
 * SIGKILL after the grace) and exits with {@link Worker#EXPIRED_EXIT_CODE}.
 *
 * <pre>
 * java ... dev.lifecycle.examples.worker.ExampleWorker &lt;job-file&gt; &lt;work-ms&gt; complete|fail
 * </pre>
 *
 * <p>The ceiling and grace come from {@code lifecycle.worker.ceiling} / {@code
 * LIFECYCLE_WORKER_CEILING} and {@code lifecycle.worker.grace} (defaults here: 10 min and 5 s).
 * Start it with {@link #command} as a {@code ProcessTree} (a session of its own): the worker then
 * leads its group, which self-termination needs, and outlives whoever launched it.
 */
public final class ExampleWorker {
  /** Exit status of a job that failed. */
  public static final int FAILED_EXIT_CODE = 1;

  private ExampleWorker() {}

  private static final Limit CEILING = Limit.ofMinutes(10);

  public static void main(String[] args) throws Exception {
    Path jobFile = Path.of(args[0]);
    long workMillis = Long.parseLong(args[1]);
    boolean fail = args.length > 2 && args[2].equals("fail");
    try (Worker worker =
        Worker.builder()
            .jobFile(jobFile)
            // This program's own ceiling, still overridable: a value set in code wins over the
            // configuration, so the configuration is read here first. The grace is the worker's
            // (configured, else 5 s).
            .ceiling(Limit.fromConfig(Worker.CEILING_PROPERTY, Worker.CEILING_ENV, CEILING))
            .start()) {
      WorkerStatus status = worker.run(() -> job(workMillis, fail));
      // Only COMPLETED or FAILED get here: after expiry run() does not return (the worker exits
      // 124).
      System.exit(status == WorkerStatus.COMPLETED ? 0 : FAILED_EXIT_CODE);
    }
  }

  private static void job(long workMillis, boolean fail) throws Exception {
    // A helper in the worker's own group that ignores SIGTERM: only the group SIGKILL ends it.
    Process helper =
        new ProcessBuilder("sh", "-c", "trap '' TERM; exec sleep 600")
            .redirectInput(Redirect.from(new File("/dev/null")))
            .redirectOutput(Redirect.DISCARD)
            .redirectError(Redirect.DISCARD)
            .start();
    try {
      Thread.sleep(workMillis); // the "work"
      if (fail) {
        throw new IllegalStateException("the job failed on purpose");
      }
    } finally {
      helper.destroyForcibly(); // normal end: the job cleans up its own helper
    }
  }

  /**
   * The worker's command line (run it with {@code ProcessTree.spawn}); {@code jvmOptions} may set
   * the ceiling and grace, e.g. {@code -Dlifecycle.worker.ceiling=1s}.
   */
  public static ProcessBuilder command(
      Path jobFile, Duration work, boolean fail, List<String> jvmOptions) {
    return BrokerCommand.javaCommand(
            ExampleWorker.class,
            jvmOptions,
            List.of(jobFile.toString(), Long.toString(work.toMillis()), fail ? "fail" : "complete"))
        .redirectInput(Redirect.from(new File("/dev/null")))
        .redirectOutput(Redirect.DISCARD)
        .redirectError(Redirect.DISCARD);
  }
}
