package dev.lifecycle.worker;

import dev.lifecycle.time.Limit;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The worker child JVM of {@link WorkerProcessTest}: starts a tree member that ignores SIGTERM,
 * prints {@code MEMBER <pid>}, runs a job of {@code <job-ms>} under a {@link Worker}, prints {@code
 * JOB DONE} when the job body ends and {@code RESULT <status>} if {@code run} returns.
 *
 * <p>Arguments: {@code <job-file> <ceiling-ms or -> <grace-ms> <job-ms> <complete|fail|spin|fork>}:
 * {@code spin} starts a busy-loop shell, {@code fork} ten sleeps, each printed as {@code CHILD
 * <pid>}, and then the job sleeps and completes.
 */
public final class WorkerMain {
  private WorkerMain() {}

  public static void main(String[] args) throws Exception {
    Process member =
        new ProcessBuilder("sh", "-c", "trap '' TERM; sleep 300")
            .redirectOutput(Redirect.DISCARD)
            .start();
    System.out.println("MEMBER " + member.pid());
    System.out.flush();
    Worker.Builder builder =
        Worker.builder()
            .jobFile(Path.of(args[0]))
            .jobId("test-job")
            .grace(Duration.ofMillis(Long.parseLong(args[2])));
    if (!args[1].equals("-")) { // "-": no ceiling in code, so the configured one applies
      builder.ceiling(Limit.ofMillis(Long.parseLong(args[1])));
    }
    Worker worker = builder.start();
    long jobMillis = Long.parseLong(args[3]);
    boolean fails = args[4].equals("fail");
    WorkerStatus status =
        worker.run(
            () -> {
              if (args[4].equals("spin")) {
                child("while :; do :; done");
              } else if (args[4].equals("fork")) {
                for (int i = 0; i < 10; i++) {
                  child("sleep 60");
                }
              }
              Thread.sleep(jobMillis);
              System.out.println("JOB DONE");
              System.out.flush();
              if (fails) {
                throw new IllegalStateException("job fails on purpose");
              }
            });
    System.out.println("RESULT " + status);
    System.out.flush();
    member.destroyForcibly().waitFor();
    System.exit(status == WorkerStatus.COMPLETED ? 0 : 3);
  }

  private static void child(String script) throws java.io.IOException {
    Process p = new ProcessBuilder("sh", "-c", script).redirectOutput(Redirect.DISCARD).start();
    System.out.println("CHILD " + p.pid());
    System.out.flush();
  }
}
