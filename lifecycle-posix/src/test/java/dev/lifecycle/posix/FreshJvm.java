package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a main class of these tests in a fresh JVM, for what only a JVM's start shows. */
final class FreshJvm {
  private FreshJvm() {}

  /**
   * Runs {@code main} with {@code classPath} and {@code flags} (native access allowed), bounded to
   * 60 s; asserts that it exited 0 and returns its output, stdout and stderr together.
   */
  static String runOn(String classPath, Class<?> main, String... flags) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
    command.addAll(List.of(flags));
    command.addAll(List.of("-cp", classPath, main.getName()));
    Process jvm = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      String output = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(jvm.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
      assertThat(jvm.exitValue()).as(output).isZero();
      return output;
    } finally {
      jvm.destroyForcibly();
    }
  }

  /** {@link #runOn(String, Class, String...)} on this JVM's class path. */
  static String run(Class<?> main, String... flags) throws Exception {
    return runOn(System.getProperty("java.class.path"), main, flags);
  }
}
