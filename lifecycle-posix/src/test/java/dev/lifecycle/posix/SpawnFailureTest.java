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
  @TempDir Path dir;

  @Test
  void missingProgram() {
    assertThatThrownBy(() -> PLATFORM.spawn(new ProcessBuilder("/nonexistent/program", "x")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("/nonexistent/program")
        .hasMessageContaining("error=2, No such file or directory");
  }

  @Test
  void missingOnPath() {
    ProcessBuilder builder = new ProcessBuilder("no-such-program-anywhere");
    builder.environment().put("PATH", dir.toString());
    assertThatThrownBy(() -> PLATFORM.spawn(builder))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("no-such-program-anywhere")
        .hasMessageContaining("error=2, No such file or directory");
  }

  @Test
  void notExecutable() throws IOException {
    Path script = Files.writeString(dir.resolve("script.sh"), "#!/bin/sh\nexit 0\n");
    assertThatThrownBy(() -> PLATFORM.spawn(new ProcessBuilder(script.toString())))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(script.toString())
        .hasMessageContaining("error=13, Permission denied");
  }

  @Test
  void missingWorkingDirectory() {
    File missing = dir.resolve("missing").toFile();
    assertThatThrownBy(() -> PLATFORM.spawn(new ProcessBuilder("/bin/true").directory(missing)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("/bin/true")
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("error=2, No such file or directory");
  }

  @Test
  void workingDirectoryIsAFile() throws IOException {
    File file = Files.writeString(dir.resolve("plain"), "").toFile();
    assertThatThrownBy(() -> PLATFORM.spawn(new ProcessBuilder("/bin/true").directory(file)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("error=20, Not a directory");
  }

  @Test
  void unreadableInputFile() {
    File missing = dir.resolve("absent-input").toFile();
    assertThatThrownBy(() -> PLATFORM.spawn(new ProcessBuilder("/bin/cat").redirectInput(missing)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("error=2, No such file or directory");
  }
}
