package dev.lifecycle.posix;

import static dev.lifecycle.posix.Children.PLATFORM;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A child that cannot start is an exception with errno, never an exit code 127 to guess about. */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SpawnFailureTest {
  private static final String ENOENT = "error=2, No such file or directory";

  @TempDir Path dir;

  @Test
  void missingProgram() {
    assertSpawnFails(
        new ProcessBuilder("/nonexistent/program", "x"), "/nonexistent/program", ENOENT);
  }

  @Test
  void missingOnPath() {
    ProcessBuilder builder = new ProcessBuilder("no-such-program-anywhere");
    builder.environment().put("PATH", dir.toString());
    assertSpawnFails(builder, "no-such-program-anywhere", ENOENT);
  }

  @Test
  void notExecutable() throws IOException {
    Path script = Files.writeString(dir.resolve("script.sh"), "#!/bin/sh\nexit 0\n");
    assertSpawnFails(
        new ProcessBuilder(script.toString()), script.toString(), "error=13, Permission denied");
  }

  @Test
  void missingWorkingDirectory() {
    File missing = dir.resolve("missing").toFile();
    assertSpawnFails(
        new ProcessBuilder("/bin/true").directory(missing),
        "/bin/true",
        missing.toString(),
        ENOENT);
  }

  @Test
  void workingDirectoryIsAFile() throws IOException {
    File file = Files.writeString(dir.resolve("plain"), "").toFile();
    assertSpawnFails(new ProcessBuilder("/bin/true").directory(file), "error=20, Not a directory");
  }

  @Test
  void unreadableInputFile() {
    File missing = dir.resolve("absent-input").toFile();
    assertSpawnFails(new ProcessBuilder("/bin/cat").redirectInput(missing), ENOENT);
  }

  /** Spawning {@code builder} fails with an IOException whose message names every fragment. */
  private static void assertSpawnFails(ProcessBuilder builder, String... fragments) {
    assertThatThrownBy(() -> PLATFORM.spawn(builder))
        .isInstanceOf(IOException.class)
        .hasMessageContainingAll(fragments);
  }
}
