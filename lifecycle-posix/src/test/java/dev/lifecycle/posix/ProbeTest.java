package dev.lifecycle.posix;

import static dev.lifecycle.posix.Children.PLATFORM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.UnsafeSignalException;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.Requirement;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Liveness, identity and signals, including the EPERM and pid-reuse cases. */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ProbeTest {
  @RegisterExtension final Children children = new Children();

  @Test
  void invalidPidsAreRejectedBeforeAnySyscall() {
    for (long pid : new long[] {0, -1, -42, 1L + Integer.MAX_VALUE}) {
      assertThatThrownBy(() -> PLATFORM.probe(pid)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> PLATFORM.identify(pid)).isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> PLATFORM.signal(ProcessIdentity.ofPid(1), Signal.KILL))
        .isInstanceOf(UnsafeSignalException.class);
  }

  @Test
  void liveAndMissingPids() {
    assertThat(PLATFORM.probe(ProcessHandle.current().pid())).isEqualTo(Liveness.ALIVE);
    assertThat(PLATFORM.probe(PLATFORM.self())).isEqualTo(Liveness.ALIVE);
    assertThat(PLATFORM.self().isComplete()).isTrue();
    assertThat(PLATFORM.probe(Integer.MAX_VALUE)).isEqualTo(Liveness.GONE); // ESRCH
  }

  @Test
  void aZombieThatIsNotOurChildIsGone() throws Exception {
    Children.Zombie zombie = children.zombieGrandchild();
    assertThat(PLATFORM.probe(zombie.pid())).isEqualTo(Liveness.GONE);
    assertThat(PLATFORM.probe(PLATFORM.identify(zombie.pid()).orElseThrow()))
        .isEqualTo(Liveness.GONE);
    assertThat(PLATFORM.probe(zombie.parent().pid())).isEqualTo(Liveness.ALIVE);
  }

  @Test
  void aReusedPidIsNotOurs() throws Exception {
    SupervisedProcess child = children.spawn(new ProcessBuilder("sleep", "30"));
    ProcessIdentity real = child.identity();
    assertThat(real.isComplete()).isTrue();
    ProcessIdentity earlier = new ProcessIdentity(real.pid(), real.startTime() - 1, real.bootId());

    assertThat(PLATFORM.probe(real)).isEqualTo(Liveness.ALIVE);
    assertThat(PLATFORM.probe(earlier)).isEqualTo(Liveness.ALIVE_NOT_OURS);
    assertThat(PLATFORM.probe(ProcessIdentity.ofPid(real.pid()))).isEqualTo(Liveness.ALIVE);
    assertThat(PLATFORM.signal(earlier, Signal.KILL)).isEqualTo(SignalResult.IDENTITY_MISMATCH);
    assertThat(child.waitFor(100, TimeUnit.MILLISECONDS)).isFalse(); // not signalled

    // The same for a process that is not our child (the path without a pidfd).
    ProcessIdentity self = PLATFORM.self();
    ProcessIdentity selfEarlier =
        new ProcessIdentity(self.pid(), self.startTime() - 1, self.bootId());
    assertThat(PLATFORM.probe(selfEarlier)).isEqualTo(Liveness.ALIVE_NOT_OURS);
  }

  @Test
  void signalsAProcessThatIsNotOurChild() throws Exception {
    Process jdkChild = new ProcessBuilder("sleep", "30").start();
    try {
      ProcessIdentity identity = PLATFORM.identify(jdkChild.pid()).orElseThrow();
      assertThat(PLATFORM.signal(identity, Signal.TERM)).isEqualTo(SignalResult.DELIVERED);
      assertThat(jdkChild.waitFor(5, TimeUnit.SECONDS)).isTrue();
      assertThat(jdkChild.exitValue()).isEqualTo(128 + 15); // the JDK still got its status
    } finally {
      jdkChild.destroyForcibly();
    }
  }

  @Test
  void groupSignalsEndATreeWhileTheLeaderIsPinned() throws Exception {
    SupervisedProcess leader =
        children.spawnUnreaped(new ProcessBuilder("/bin/sh", "-c", "sleep 30 & sleep 30 & exit 0"));
    long pgid = leader.processGroupId();
    assertThat(leader.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(Await.within(Duration.ofMillis(5_000), () -> liveMembers(pgid).size() == 2))
        .isTrue();

    assertThat(PLATFORM.signalGroup(pgid, Signal.KILL)).isEqualTo(SignalResult.DELIVERED);
    assertThat(Await.within(Duration.ofMillis(5_000), () -> liveMembers(pgid).isEmpty())).isTrue();
    assertThat(leader.reap()).isTrue();
  }

  @Test
  void groupSignalSafety() {
    assertThatThrownBy(() -> PLATFORM.signalGroup(PLATFORM.selfProcessGroup(), Signal.TERM))
        .isInstanceOf(UnsafeSignalException.class);
    assertThatThrownBy(() -> PLATFORM.signalGroup(1, Signal.TERM))
        .isInstanceOf(UnsafeSignalException.class);
    assertThat(PLATFORM.signalGroup(Integer.MAX_VALUE, Signal.TERM)).isEqualTo(SignalResult.GONE);
  }

  @Test
  void tableEnvironmentAndCommandLineSeeTheChild() throws Exception {
    SpawnOptions options = SpawnOptions.defaults();
    SupervisedProcess child = children.spawn(new ProcessBuilder("sleep", "30"), options);
    // posix_spawn returns once the kernel has switched the child to the new image, a moment
    // before execve has laid out its arguments and environment: poll (bounded) for them.
    Await.within(
        Duration.ofSeconds(5),
        () -> PLATFORM.commandLine(child.pid()).equals(Optional.of(List.of("sleep", "30"))));
    assertThat(PLATFORM.commandLine(child.pid())).contains(List.of("sleep", "30"));
    assertThat(PLATFORM.findByEnvironment(SpawnOptions.COOKIE_VARIABLE, options.treeCookie()))
        .containsExactly(child.pid());
    assertThat(PLATFORM.snapshot().session(child.pid()))
        .extracting(ProcessInfo::pid)
        .containsExactly(child.pid());
  }

  /**
   * EPERM reads as alive, except from a zombie, which has exited. Root never gets EPERM, so a JVM
   * running as nobody probes this (root-owned) JVM, tries to kill a root-owned child and probes a
   * root-owned zombie.
   */
  @Test
  void epermReadsAsAliveNotOurs() throws Exception {
    SupervisedProcess victim = children.spawn(new ProcessBuilder("sleep", "30"));
    if (!"root".equals(System.getProperty("user.name"))) {
      assertThat(PLATFORM.probe(1)).isEqualTo(Liveness.ALIVE_NOT_OURS);
      return;
    }
    Children.Zombie zombie = children.zombieGrandchild();
    Path setpriv = Requirement.program("setpriv");
    Path sandbox = Files.createTempDirectory("lifecycle-eperm");
    try {
      List<String> command = new ArrayList<>();
      command.addAll(
          List.of(setpriv.toString(), "--reuid=nobody", "--regid=nogroup", "--clear-groups"));
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-Djna.tmpdir=" + sandbox.resolve("jna"));
      command.add("-Duser.home=" + sandbox);
      command.addAll(List.of("-cp", readableClassPath(sandbox)));
      command.add(ProbeMain.class.getName());
      command.add(Long.toString(ProcessHandle.current().pid()));
      command.add(Long.toString(victim.pid()));
      command.add(Long.toString(zombie.pid()));
      Files.createDirectories(sandbox.resolve("jna"));
      Files.setPosixFilePermissions(
          sandbox.resolve("jna"), PosixFilePermissions.fromString("rwxrwxrwx"));
      Path errors = sandbox.resolve("stderr.txt");
      SupervisedProcess probe =
          children.spawn(
              new ProcessBuilder(command)
                  .directory(sandbox.toFile())
                  .redirectError(errors.toFile()));
      String output = Children.read(probe.getInputStream());
      assertThat(probe.waitFor(30, TimeUnit.SECONDS)).isTrue();
      String diagnostics = output + Files.readString(errors); // JVM warnings go to stderr
      assertThat(probe.exitValue()).as(diagnostics).isZero();
      assertThat(output.lines())
          .as(diagnostics)
          .containsExactly(
              Liveness.ALIVE_NOT_OURS.name(),
              Liveness.ALIVE_NOT_OURS.name(),
              SignalResult.NOT_PERMITTED.name(),
              Liveness.GONE.name());
      assertThat(victim.isAlive()).isTrue();
    } finally {
      try (Stream<Path> files = Files.walk(sandbox)) {
        files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  /** The test class path, with jars copied where nobody can read them (~/.m2 is root's 0700). */
  private static String readableClassPath(Path sandbox) throws IOException {
    Files.setPosixFilePermissions(sandbox, PosixFilePermissions.fromString("rwxr-xr-x"));
    List<String> entries = new ArrayList<>();
    int index = 0;
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path path = Path.of(entry);
      if (Files.isRegularFile(path)) {
        Path copy = sandbox.resolve(index++ + "-" + path.getFileName());
        Files.copy(path, copy);
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
        entries.add(copy.toString());
      } else if (Files.isDirectory(path)) {
        entries.add(path.toString()); // target/*classes: world-readable under the build tree
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  private static List<ProcessInfo> liveMembers(long pgid) {
    return PLATFORM.snapshot().group(pgid).stream().filter(p -> !p.hasExited()).toList();
  }
}
