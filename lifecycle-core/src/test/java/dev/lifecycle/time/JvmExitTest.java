package dev.lifecycle.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whether a JVM whose main thread has returned waits for our timers: the real thing. */
class JvmExitTest {
  @TempDir Path dir;

  @Test
  void pendingEscalationKeepsTheJvmAliveUntilItRan() throws Exception {
    Result result = runChild("escalation");
    assertThat(result.exited).as("exited; output: %s", result.output).isTrue();
    assertThat(result.exitCode).isZero();
    assertThat(result.output).containsExactly("main returns", "escalated");
    assertThat(result.millis).isGreaterThanOrEqualTo(1_000);
  }

  @Test
  void guardTimerDoesNotKeepTheJvmAlive() throws Exception {
    Result result = runChild("guard");
    assertThat(result.exited).as("exited long before the 60 s guard").isTrue();
    assertThat(result.exitCode).isZero();
    assertThat(result.output).containsExactly("main returns");
  }

  private record Result(boolean exited, int exitCode, List<String> output, long millis) {}

  private Result runChild(String mode) throws IOException, InterruptedException {
    // Surefire may run us from a manifest-only jar; it publishes the real class path here.
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path out = dir.resolve(mode + ".out");
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classPath,
                JvmExitChild.class.getName(),
                mode)
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    long start = System.nanoTime();
    try {
      boolean exited = child.waitFor(20, TimeUnit.SECONDS); // generous: 2 busy cores
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      List<String> lines =
          Files.readAllLines(out).stream().filter(l -> !l.startsWith("SLF4J")).toList();
      return new Result(exited, exited ? child.exitValue() : -1, lines, millis);
    } finally {
      child.destroyForcibly();
      child.waitFor(5, TimeUnit.SECONDS);
    }
  }
}
