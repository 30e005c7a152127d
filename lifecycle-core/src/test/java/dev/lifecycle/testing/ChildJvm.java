package dev.lifecycle.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Child JVMs for lifecycle's tests: the command line that runs a main class of the test classpath
 * on the running JDK, and a bounded run that captures a process's output. Shared by every module's
 * tests through lifecycle-core's test jar. Stateless.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /** The {@code java} launcher of the JDK that runs the tests. */
  public static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** {@code java <options> -cp <this test classpath> <main> <args>}. */
  public static List<String> command(Class<?> main, List<String> options, List<String> args) {
    List<String> command = new ArrayList<>(List.of(java()));
    command.addAll(options);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(args);
    return command;
  }

  /** {@link #command} with native access granted to the classpath (JNA, the posix platform). */
  public static List<String> nativeCommand(Class<?> main, String... args) {
    return command(main, List.of("--enable-native-access=ALL-UNNAMED"), List.of(args));
  }

  /** What a process wrote and how it exited. */
  public record Output(int exitCode, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }

  /**
   * Starts {@code builder} with stdout and stderr sent to files in {@code dir}, waits for it to
   * exit within {@code bound} and reads both. The process is killed either way.
   *
   * @throws AssertionError when it does not exit within {@code bound}
   */
  public static Output run(ProcessBuilder builder, Path dir, Duration bound)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "out-", ".txt");
    Path err = Files.createTempFile(dir, "err-", ".txt");
    Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try {
      if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("did not exit within " + bound + ": " + builder.command());
      }
    } finally {
      process.destroyForcibly(); // no-op once exited
      process.waitFor(10, TimeUnit.SECONDS);
    }
    return new Output(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
