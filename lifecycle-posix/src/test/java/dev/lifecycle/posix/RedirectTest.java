package dev.lifecycle.posix;

import static dev.lifecycle.posix.Children.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.SupervisedProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Every {@link ProcessBuilder} redirect mode, as the JDK would honour it. */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RedirectTest {
  @RegisterExtension final Children children = new Children();
  @TempDir Path dir;

  @Test
  void pipesBothWays() throws Exception {
    SupervisedProcess child = children.sh("cat; echo done >&2");
    try (OutputStream in = child.getOutputStream()) {
      in.write("hello\nworld\n".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(read(child.getInputStream())).isEqualTo("hello\nworld\n");
    assertThat(read(child.getErrorStream())).isEqualTo("done\n");
    assertThat(child.waitFor()).isZero();
  }

  @Test
  void inheritGivesTheChildOurOwnFds() throws Exception {
    SupervisedProcess child = children.spawn(new ProcessBuilder("sleep", "30").inheritIO());
    for (int fd = 0; fd <= 2; fd++) {
      assertThat(target(child.pid(), fd)).isEqualTo(target(ProcessHandle.current().pid(), fd));
    }
    assertThat(child.getInputStream().read()).isEqualTo(-1);
    assertThatThrownBy(() -> child.getOutputStream().write(1)).isInstanceOf(IOException.class);
  }

  @Test
  void discardGoesToDevNull() throws Exception {
    SupervisedProcess child =
        children.spawn(
            new ProcessBuilder("sleep", "30")
                .redirectOutput(Redirect.DISCARD)
                .redirectError(Redirect.DISCARD));
    assertThat(target(child.pid(), 1)).isEqualTo("/dev/null");
    assertThat(target(child.pid(), 2)).isEqualTo("/dev/null");
    assertThat(child.getInputStream().read()).isEqualTo(-1);
  }

  @Test
  void fileWriteTruncatesAndAppendAppends() throws Exception {
    Path out = dir.resolve("out.txt");
    Files.writeString(out, "old content that must go\n");
    SupervisedProcess first =
        children.spawn(new ProcessBuilder("echo", "one").redirectOutput(out.toFile()));
    assertThat(first.waitFor()).isZero();
    assertThat(Files.readString(out)).isEqualTo("one\n");

    SupervisedProcess second =
        children.spawn(
            new ProcessBuilder("echo", "two").redirectOutput(Redirect.appendTo(out.toFile())));
    assertThat(second.waitFor()).isZero();
    assertThat(Files.readString(out)).isEqualTo("one\ntwo\n");
  }

  @Test
  void fileReadFeedsStdin() throws Exception {
    Path in = dir.resolve("in.txt");
    Files.writeString(in, "from a file\n");
    SupervisedProcess child = children.spawn(new ProcessBuilder("cat").redirectInput(in.toFile()));
    assertThat(read(child.getInputStream())).isEqualTo("from a file\n");
    assertThat(child.waitFor()).isZero();
  }

  @Test
  void redirectErrorStreamMergesStderrIntoStdout() throws Exception {
    SupervisedProcess child =
        children.spawn(
            new ProcessBuilder("/bin/sh", "-c", "echo out; echo err >&2")
                .redirectErrorStream(true));
    assertThat(read(child.getInputStream())).isEqualTo("out\nerr\n");
    assertThat(child.getErrorStream().read()).isEqualTo(-1);
    assertThat(child.waitFor()).isZero();
  }

  @Test
  void stderrToAFileWhileStdoutIsPiped() throws Exception {
    Path err = dir.resolve("err.txt");
    SupervisedProcess child =
        children.spawn(
            new ProcessBuilder("/bin/sh", "-c", "echo out; echo err >&2")
                .redirectError(err.toFile()));
    assertThat(read(child.getInputStream())).isEqualTo("out\n");
    assertThat(child.waitFor()).isZero();
    assertThat(Files.readString(err)).isEqualTo("err\n");
  }

  private static String target(long pid, int fd) throws IOException {
    return Files.readSymbolicLink(Path.of("/proc/" + pid + "/fd/" + fd)).toString();
  }
}
