package dev.lifecycle.process.jdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.UnsafeSignalException;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.Requirement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fallback with real processes. Every child is killed in {@link #killChildren()}. */
class JdkPlatformTest {
  private final ProcessPlatform platform = ProcessPlatform.jdk();
  private final List<Process> started = new ArrayList<>();

  @BeforeAll
  static void linuxOnly() {
    Requirement.require(ProcFs.isAvailable(), "these tests read /proc");
  }

  @AfterEach
  void killChildren() throws InterruptedException {
    for (Process p : started) {
      p.destroyForcibly();
      assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("child %d ended", p.pid()).isTrue();
    }
  }

  private SupervisedProcess spawn(SpawnOptions options, String... command) throws IOException {
    SupervisedProcess p = platform.spawn(new ProcessBuilder(command), options);
    started.add(p);
    return p;
  }

  @Test
  void describesItsWeakerGuarantees() {
    assertThat(platform.capabilities().platform()).isEqualTo("jdk");
    assertThat(platform.capabilities().groupSignals()).isFalse();
    assertThat(platform.capabilities().threadlessExitWatch()).isFalse();
  }

  @Test
  void childLeadsItsOwnSessionThroughSetsid() throws Exception {
    Requirement.require(platform.capabilities().newSession(), "util-linux setsid absent");
    SupervisedProcess child = spawn(SpawnOptions.defaults(), "sleep", "30");
    // The fallback's documented window: until setsid(1) has called setsid(), the child is still
    // in our session. Poll (bounded) for the moment it leads its own.
    ProcessInfo row =
        Await.until(
            Duration.ofSeconds(10),
            "child leads its own session",
            () -> ProcFs.stat(child.pid()).orElseThrow(),
            r -> r.sid() == child.pid());
    assertThat(row.sid()).isEqualTo(child.pid());
    assertThat(row.pgid()).isEqualTo(child.pid());
    assertThat(child.processGroupId()).isEqualTo(child.pid());
    assertThat(child.isSessionLeader()).isTrue();
    assertThat(row.pgid()).isNotEqualTo(platform.selfProcessGroup());
  }

  @Test
  void withoutNewSessionTheChildSharesOurGroup() throws Exception {
    SupervisedProcess child = spawn(SpawnOptions.defaults().withNewSession(false), "sleep", "30");
    assertThat(child.processGroupId()).isEqualTo(-1);
    assertThat(ProcFs.stat(child.pid()).orElseThrow().pgid())
        .isEqualTo(platform.selfProcessGroup());
  }

  @Test
  void exportsTheTreeCookieAndKeepsTheEnvironment() throws Exception {
    SpawnOptions options = SpawnOptions.defaults();
    ProcessBuilder builder =
        new ProcessBuilder("sh", "-c", "echo \"$" + SpawnOptions.COOKIE_VARIABLE + " $EXTRA\"");
    builder.environment().put("EXTRA", "kept");
    SupervisedProcess child = platform.spawn(builder, options);
    started.add(child);
    String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(out.trim()).isEqualTo(options.treeCookie() + " kept");
    assertThat(child.treeCookie()).isEqualTo(options.treeCookie());
    assertThat(builder.environment()).doesNotContainKey(SpawnOptions.COOKIE_VARIABLE);
  }

  @Test
  void missingProgramIsAnIoExceptionNotAnExitCode() {
    assertThatThrownBy(() -> spawn(SpawnOptions.defaults(), "/nonexistent/program"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("/nonexistent/program")
        .hasMessageContaining("error=2");
    assertThatThrownBy(() -> spawn(SpawnOptions.defaults(), "no-such-program-on-path-xyz"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("error=2");
  }

  @Test
  void nonExecutableIsAnIoException(@TempDir Path dir) throws Exception {
    Path script = Files.writeString(dir.resolve("script.sh"), "#!/bin/sh\nexit 0\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-------"));
    assertThatThrownBy(() -> spawn(SpawnOptions.defaults(), script.toString()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("error=13");
  }

  @Test
  void probesAndSignalsByIdentity() throws Exception {
    SupervisedProcess child = spawn(SpawnOptions.defaults(), "sleep", "30");
    ProcessIdentity identity = child.identity();
    assertThat(identity.isComplete()).isTrue();
    assertThat(platform.probe(identity)).isEqualTo(Liveness.ALIVE);
    assertThat(platform.probe(child.pid())).isEqualTo(Liveness.ALIVE);

    ProcessIdentity reused =
        new ProcessIdentity(identity.pid(), identity.startTime() + 1, identity.bootId());
    assertThat(platform.probe(reused)).isEqualTo(Liveness.ALIVE_NOT_OURS);
    assertThat(platform.signal(reused, Signal.KILL)).isEqualTo(SignalResult.IDENTITY_MISMATCH);
    assertThat(child.isAlive()).isTrue();

    assertThat(platform.signal(identity, Signal.TERM)).isEqualTo(SignalResult.DELIVERED);
    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).isEqualTo(143);
    assertThat(platform.probe(identity)).isEqualTo(Liveness.GONE);
    assertThat(platform.signal(identity, Signal.KILL)).isEqualTo(SignalResult.GONE);
  }

  @Test
  void refusesUnsafeTargetsAndUnsupportedSignals() throws Exception {
    assertThatThrownBy(() -> platform.probe(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> platform.signal(ProcessIdentity.ofPid(1), Signal.KILL))
        .isInstanceOf(UnsafeSignalException.class);
    assertThatThrownBy(() -> platform.signalGroup(platform.selfProcessGroup(), Signal.KILL))
        .isInstanceOf(UnsafeSignalException.class);
    assertThatThrownBy(() -> platform.signalGroup(123456, Signal.TERM))
        .isInstanceOf(UnsupportedOperationException.class);
    SupervisedProcess child = spawn(SpawnOptions.defaults(), "sleep", "30");
    assertThatThrownBy(() -> platform.signal(child.identity(), Signal.STOP))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void isARealProcess() throws Exception {
    SupervisedProcess child = spawn(SpawnOptions.defaults(), "sh", "-c", "read x; exit 3");
    assertThat(child.isAlive()).isTrue();
    assertThatThrownBy(child::exitValue).isInstanceOf(IllegalThreadStateException.class);
    child.getOutputStream().close();
    assertThat(child.onExit().get(10, TimeUnit.SECONDS)).isSameAs(child);
    assertThat(child.exitValue()).isEqualTo(3);
    assertThat(child.toHandle().pid()).isEqualTo(child.pid());
    assertThat(child.reap()).isTrue();
  }

  @Test
  void selfIdentity() {
    assertThat(platform.self().pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(platform.probe(platform.self())).isEqualTo(Liveness.ALIVE);
    assertThat(platform.commandLine(ProcessHandle.current().pid())).isPresent();
  }
}
