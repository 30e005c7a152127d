package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.testing.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Like the JDK's: once a child exited, its pipes' descriptors are released even when the caller
 * never touches the streams, and what the child wrote stays readable.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamReleaseTest {
  @RegisterExtension final Children children = new Children();

  @Test
  void untouchedStreamsOfExitedChildrenHoldNoDescriptors() throws Exception {
    spawnAndWait(5); // warm-up: the watcher and the release thread exist from here on
    long fds = openFds();

    spawnAndWait(300); // three pipes each, never read, written or closed by us

    assertThat(Await.within(Duration.ofMillis(5_000), () -> openFds() <= fds))
        .as("fds back to %d (now %d)", fds, openFds())
        .isTrue();
  }

  @Test
  void outputWrittenBeforeExitIsKeptAndStdinIsClosed() throws Exception {
    long fds = openFds();
    SupervisedProcess child =
        children.spawn(new ProcessBuilder("sh", "-c", "echo out; echo err >&2; exit 3"));
    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(Await.within(Duration.ofMillis(5_000), () -> openFds() <= fds))
        .as("pipes released")
        .isTrue();

    assertThat(new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
        .isEqualTo("out\n");
    assertThat(new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
        .isEqualTo("err\n");
    assertThat(child.exitValue()).isEqualTo(3);
    assertThatThrownBy(() -> child.getOutputStream().write(1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("closed");
  }

  private void spawnAndWait(int count) throws Exception {
    for (int i = 0; i < count; i++) {
      SupervisedProcess child = children.spawn(new ProcessBuilder("/bin/true"));
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static long openFds() {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
