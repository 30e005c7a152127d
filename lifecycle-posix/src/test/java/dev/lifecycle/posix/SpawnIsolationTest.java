package dev.lifecycle.posix;

import static dev.lifecycle.posix.Children.PLATFORM;
import static dev.lifecycle.posix.Children.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.procfs.ProcFs;
import java.io.FileOutputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/** What the child starts with: its own session, only fds 0-2, clean signals, env and cwd. */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SpawnIsolationTest {
  @RegisterExtension final Children children = new Children();

  @Test
  void childLeadsANewSessionAndGroup() throws Exception {
    SupervisedProcess child = children.spawn(new ProcessBuilder("sleep", "30"));
    int pid = (int) child.pid();

    assertThat(LibC.getsid(pid)).isEqualTo(pid);
    assertThat(LibC.getpgid(pid)).isEqualTo(pid);
    ProcessInfo stat = ProcFs.stat(pid).orElseThrow();
    assertThat(stat.sid()).isEqualTo(pid);
    assertThat(stat.pgid()).isEqualTo(pid);
    assertThat(child.processGroupId()).isEqualTo(pid);
    assertThat(child.isSessionLeader()).isTrue();
    assertThat(LibC.getsid(0)).isNotEqualTo(pid);
  }

  @Test
  void withoutNewSessionTheChildSharesOurGroup() throws Exception {
    SupervisedProcess child =
        children.spawn(
            new ProcessBuilder("sleep", "30"), SpawnOptions.defaults().withNewSession(false));

    assertThat(child.processGroupId()).isEqualTo(-1);
    assertThat(child.isSessionLeader()).isFalse();
    assertThat(LibC.getpgid((int) child.pid())).isEqualTo(PLATFORM.selfProcessGroup());
    assertThat(LibC.getsid((int) child.pid())).isEqualTo(LibC.getsid(0));
  }

  @Test
  void onlyStandardFdsReachTheChild(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("held-open.txt");
    try (ServerSocket socket = new ServerSocket(0);
        FileOutputStream held = new FileOutputStream(file.toFile())) {
      // Meaningful only if the JVM really holds them (the JDK's sockets are not O_CLOEXEC).
      assertThat(fdTargets(Path.of("/proc/self/fd"))).contains(file.toString());

      SupervisedProcess child = children.sh("ls -l /proc/self/fd");
      String listing = read(child.getInputStream());
      assertThat(child.waitFor()).isZero();

      assertThat(listing).doesNotContain("socket:").doesNotContain(file.toString());
      Matcher fd = Pattern.compile(" (\\d+) -> ").matcher(listing);
      int count = 0;
      while (fd.find()) {
        assertThat(Integer.parseInt(fd.group(1))).as(listing).isLessThanOrEqualTo(3);
        count++;
      }
      assertThat(count).as(listing).isEqualTo(4); // 0-2, and 3 is ls reading /proc/self/fd
    }
  }

  @Test
  void childStartsWithEmptySignalMaskAndDefaultDispositions() throws Exception {
    // Show the test is meaningful: this JVM thread blocks signals (SIGQUIT, for the VM's signal
    // thread) and we make the JVM ignore SIGHUP for the duration of the spawn.
    assertThat(statusMask(Files.readString(Path.of("/proc/thread-self/status")), "SigBlk"))
        .isNotZero();
    SignalHandler previous = Signal.handle(new Signal("HUP"), SignalHandler.SIG_IGN);
    SupervisedProcess child;
    try {
      assertThat(statusMask(Files.readString(Path.of("/proc/self/status")), "SigIgn")).isNotZero();
      child = children.spawn(new ProcessBuilder("cat", "/proc/self/status"));
    } finally {
      Signal.handle(new Signal("HUP"), previous);
    }
    String status = read(child.getInputStream());
    assertThat(child.waitFor()).isZero();

    assertThat(statusMask(status, "SigBlk")).as(status).isZero();
    assertThat(statusMask(status, "SigIgn")).as(status).isZero();
  }

  @Test
  void environmentIsExactlyTheBuildersPlusTheCookie(@TempDir Path dir) throws Exception {
    ProcessBuilder builder = new ProcessBuilder("/usr/bin/env");
    builder.environment().clear();
    builder.environment().put("ONLY", "this value");
    builder.environment().put(SpawnOptions.COOKIE_VARIABLE, "inherited-and-replaced");
    SpawnOptions options = SpawnOptions.defaults().withTreeCookie("cookie-1234");
    SupervisedProcess child = children.spawn(builder, options);

    String env = read(child.getInputStream());
    assertThat(child.waitFor()).isZero();
    assertThat(env.lines())
        .containsExactlyInAnyOrder(
            "ONLY=this value", SpawnOptions.COOKIE_VARIABLE + "=cookie-1234");
    assertThat(child.treeCookie()).isEqualTo("cookie-1234");
  }

  @Test
  void workingDirectoryAndPathLookupAreHonoured(@TempDir Path dir) throws Exception {
    ProcessBuilder builder = new ProcessBuilder("pwd").directory(dir.toFile());
    builder.environment().put("PATH", "/nonexistent:/bin:/usr/bin");
    SupervisedProcess child = children.spawn(builder);

    assertThat(read(child.getInputStream()).trim()).isEqualTo(dir.toRealPath().toString());
    assertThat(child.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).isZero();
  }

  private static long statusMask(String status, String field) {
    return status
        .lines()
        .filter(line -> line.startsWith(field + ":"))
        .map(line -> Long.parseUnsignedLong(line.substring(field.length() + 1).trim(), 16))
        .findFirst()
        .orElseThrow();
  }

  private static java.util.List<String> fdTargets(Path fdDir) throws Exception {
    try (var entries = Files.list(fdDir)) {
      return entries
          .map(
              fd -> {
                try {
                  return Files.readSymbolicLink(fd).toString();
                } catch (Exception e) {
                  return "";
                }
              })
          .toList();
    }
  }
}
