package dev.lifecycle.examples;

import static dev.lifecycle.examples.Workspace.poll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.broker.BrokerLimits;
import dev.lifecycle.broker.Connect;
import dev.lifecycle.examples.broker.ExampleJson;
import dev.lifecycle.examples.cli.Cli;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.Signal;
import dev.lifecycle.testkit.ConcurrentLaunch;
import dev.lifecycle.testkit.LaunchReport;
import dev.lifecycle.testkit.LaunchResult;
import dev.lifecycle.testkit.LifecycleAssertions;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.time.Limit;
import dev.lifecycle.tree.ProcessTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The example CLI, many at once (seed-projects.md part B, scenarios 29, 34, 35). */
@NoProcessLeaks
@org.junit.jupiter.api.Timeout(90) // a hang fails the test instead of the build
class CliTest {
  private static final String ECHO = "{\"op\":\"call\",\"tool\":\"echo\",\"args\":\"echo-ok\"}";

  /** Ends the broker, then proves every process of every launch gone. */
  private static void shutDownAndAssertGone(Workspace ws, LaunchReport... launches) {
    ws.shutdownAll();
    for (LaunchReport launch : launches) {
      launch.assertAllGone(Duration.ofSeconds(10));
    }
  }

  /** A workspace whose broker is already serving (idle timeout 30 s): the CLIs' calls are warm. */
  private static Workspace warm() throws Exception {
    Workspace ws = new Workspace("-Dlifecycle.broker.idleTimeout=30s");
    try {
      ws.ensure();
      return ws;
    } catch (Exception | Error e) {
      ws.close(); // as the caller's try-with-resources would have
      throw e;
    }
  }

  private static ConcurrentLaunch.Builder launch(Workspace ws, String request, int count) {
    return ConcurrentLaunch.builder(ws.cliArgv(request))
        .count(count)
        .environment(Workspace.MARK, ws.mark)
        .timeout(Duration.ofSeconds(40));
  }

  @Test
  @DisplayName(
      "B34 (demo a): five cold-start callers get one broker; killed callers leave it serving")
  void coldStartSingleFlightAndKilledCallers() throws Exception {
    try (Workspace ws = new Workspace("-Dlifecycle.broker.idleTimeout=30s")) {
      LaunchReport cold = launch(ws, "{\"op\":\"status\"}", 5).build().run();
      cold.assertAllExitedWithin(Duration.ofSeconds(40));
      Set<Object> brokers = new java.util.HashSet<>();
      for (LaunchResult r : cold.results()) {
        assertThat(r.exitCode()).as(r.toString()).hasValue(0);
        brokers.add(((Map<?, ?>) ExampleJson.parse(r.stdout().trim())).get("pid"));
      }
      assertThat(brokers).as("single-flight start").hasSize(1);

      // Callers killed mid-call (they wait 5 s for their reply): the broker stays and serves.
      LaunchReport killed =
          launch(ws, "{\"op\":\"slow\",\"ms\":5000}", 3)
              .killCallers(3, Duration.ofMillis(1500))
              .build()
              .run();
      killed.assertAllExitedWithin(Duration.ofSeconds(20));
      assertThat(killed.results()).allMatch(LaunchResult::killedByHarness);
      Workspace.CliRun after = ws.cli(ECHO);
      assertThat(after.exit()).isZero();
      assertThat(after.stdout()).isEqualTo("\"echo-ok\"");
      assertThat(((Map<?, ?>) ExampleJson.parse(ws.cli("{\"op\":\"status\"}").stdout())).get("pid"))
          .isIn(brokers);
      shutDownAndAssertGone(ws, cold, killed);
    }
  }

  @Test
  @DisplayName("B34: five warm callers succeed, five fail; outputs intact, every pid gone")
  void warmCallersSucceedAndFail() throws Exception {
    try (Workspace ws = warm()) {
      LaunchReport ok = launch(ws, ECHO, 5).build().run();
      LaunchReport failing = launch(ws, "{\"op\":\"fail\"}", 5).build().run();
      ok.assertAllExitedWithin(Duration.ofSeconds(20));
      failing.assertAllExitedWithin(Duration.ofSeconds(20));
      for (LaunchResult r : ok.results()) {
        assertThat(r.exitCode()).as(r.toString()).hasValue(Cli.OK);
        assertThat(r.stdout()).isEqualTo("\"echo-ok\"\n");
        // exit 0 came from main returning: nothing (thread, timer, channel) kept the JVM alive
      }
      for (LaunchResult r : failing.results()) {
        assertThat(r.exitCode()).as(r.toString()).hasValue(Cli.FAILED);
        assertThat(r.stdout()).isEmpty();
        assertThat(r.stderr()).contains("failed as requested");
      }
      shutDownAndAssertGone(ws, ok, failing);
    }
  }

  @Test
  @DisplayName("a warm call starts no logging provider and loads no object mapper or native code")
  void aWarmCallLoadsOnlyTheClientPath() throws Exception {
    try (Workspace ws = warm()) {
      Path log = ws.dir.resolve("cli-classes.log");
      ProcessBuilder cli = ws.cliCommand(ECHO);
      cli.command().add(1, "-Xlog:class+load=info:file=" + log);
      Process p = cli.start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      LifecycleAssertions.assertThat(p).exitsWithin(Duration.ofSeconds(20)).withExitCode(Cli.OK);
      assertThat(out).isEqualTo("\"echo-ok\"");
      String classes = Files.readString(log);
      assertThat(classes)
          .contains("dev.lifecycle.broker.BrokerClient ", "dev.lifecycle.examples.cli.Reply ")
          .doesNotContain("org.slf4j.LoggerFactory ") // every logger on the path is lazy
          .doesNotContain("com.fasterxml.jackson.databind.")
          .doesNotContain("com.sun.jna.")
          .doesNotContain("dev.lifecycle.posix.")
          // each costs a short-lived JVM milliseconds to start (docs/PERFORMANCE.md)
          .doesNotContain("java.util.regex.Pattern ")
          .doesNotContain("java.util.Formatter ")
          .doesNotContain("java.time.format.DateTimeFormatter ")
          .doesNotContain("java.time.format.DateTimeFormatterBuilder ")
          .doesNotContain("java.lang.ProcessHandleImpl ")
          .doesNotContain("java.util.concurrent.ScheduledThreadPoolExecutor ");
      ws.shutdownAll();
    }
  }

  @Test
  @DisplayName("B35: a closed stdout pipe makes each CLI exit quietly (141) within the bound")
  void brokenPipe() throws Exception {
    try (Workspace ws = warm()) {
      List<Process> clis = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        Process p = ws.cliCommand(ECHO).start();
        p.getInputStream().close(); // the reader goes away before the CLI writes
        clis.add(p);
      }
      for (Process p : clis) {
        LifecycleAssertions.assertThat(p)
            .exitsWithin(Duration.ofSeconds(20))
            .withExitCode(Cli.BROKEN_PIPE);
        assertThat(new String(p.getErrorStream().readAllBytes())).isEmpty(); // quietly
      }
      LifecycleAssertions.assertThatPids(
              clis.stream().map(Process::pid).collect(Collectors.toList()))
          .areAllGone(Duration.ofSeconds(3));
    }
  }

  @Test
  @DisplayName("a CLI whose caller was SIGKILLed stops waiting within a second")
  void killedCallerEndsTheCli() throws Exception {
    try (Workspace ws = warm()) {
      List<String> argv = new ArrayList<>(List.of("sh", "-c", "\"$@\"; echo unreachable", "sh"));
      argv.addAll(ws.cliArgv("{\"op\":\"slow\",\"ms\":30000}"));
      ProcessBuilder shell = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.PIPE);
      shell.environment().put(Workspace.MARK, ws.mark);
      Process caller = shell.start();
      ProcessHandle cli =
          Workspace.pollFor(Duration.ofSeconds(20), () -> caller.toHandle().children().findFirst());
      ProcessIdentity cliId = Workspace.OS.identify(cli.pid()).orElseThrow();
      // Kill the caller once the CLI watches it (its thread names show in /proc).
      assertThat(poll(Duration.ofSeconds(20), () -> hasThread(cli.pid(), "cli-caller-watc")))
          .isTrue();
      Workspace.OS.signal(Workspace.OS.identify(caller.pid()).orElseThrow(), Signal.KILL);
      assertThat(caller.waitFor(10, TimeUnit.SECONDS)).isTrue();
      long t0 = System.nanoTime();
      // Without a caller watch the CLI waits for its reply: 30 s here, 60 s by default.
      assertThat(poll(Duration.ofSeconds(5), () -> Workspace.gone(cliId)))
          .as("CLI %d ended after its caller died", cli.pid())
          .isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  @DisplayName("a CLI whose caller died before the JVM reached main stops at once (launcher pid)")
  void callerDeadBeforeMainEndsTheCli() throws Exception {
    try (Workspace ws = warm()) {
      List<String> cli = ws.cliArgv("{\"op\":\"slow\",\"ms\":30000}");
      // The caller (the outer shell) forks the CLI's shell and exits; that shell waits until the
      // caller is gone, writes its pid and execs the CLI with the caller's pid, as the launcher
      // passes it. The CLI's JVM starts as an orphan: its parent at start is not the caller.
      String inner =
          "c=$1; shift; while kill -0 $c 2>/dev/null; do sleep 0.05; done; echo $$;"
              + " java=$1; shift; exec \"$java\" -D"
              + "example.cli.caller=$c \"$@\"";
      List<String> argv =
          new ArrayList<>(List.of("sh", "-c", "sh -c \"$0\" inner $$ \"$@\" &", inner));
      argv.addAll(cli);
      // A file, not a pipe: the JDK closes a child's pipe when the child exits.
      Path out = Files.createTempFile("cli-caller-", ".out");
      try {
        ProcessBuilder shell =
            new ProcessBuilder(argv)
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .redirectOutput(out.toFile());
        shell.environment().put(Workspace.MARK, ws.mark);
        Process caller = shell.start();
        assertThat(caller.waitFor(10, TimeUnit.SECONDS)).isTrue();
        // The orphaned shell's pid, written just before it becomes the CLI.
        String pid = Workspace.pollFor(Duration.ofSeconds(20), () -> firstLineNumber(out));
        Optional<ProcessIdentity> cliId = Workspace.OS.identify(Long.parseLong(pid));
        long t0 = System.nanoTime();
        // Without the named caller the CLI sees init as its parent, watches nothing and waits 30 s.
        assertThat(poll(Duration.ofSeconds(10), () -> cliId.map(Workspace::gone).orElse(true)))
            .as("CLI %s ended although its caller died before it started", pid)
            .isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
      } finally {
        Files.deleteIfExists(out);
      }
    }
  }

  private static Optional<String> firstLineNumber(Path file) {
    try {
      return Optional.of(Files.readString(file).trim()).filter(s -> s.matches("[0-9]+"));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static boolean hasThread(long pid, String comm) {
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      return tasks.anyMatch(
          task -> {
            try {
              return Files.readString(task.resolve("comm")).trim().equals(comm);
            } catch (IOException e) {
              return false;
            }
          });
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  @DisplayName("B29: a connect failure before any transport exists fails at once")
  void connectFailureBeforeTransport() throws Exception {
    long t0 = System.nanoTime();
    assertThatThrownBy(
            () ->
                Connect.withBackend(
                    () -> ProcessTree.spawn(new ProcessBuilder("/nonexistent/app-server")),
                    tree -> "never",
                    Limit.ofSeconds(5)))
        .isInstanceOf(IOException.class);
    // The CLI with a workspace that cannot be a record store: exit UNAVAILABLE, quickly.
    Path notADirectory = Files.createTempFile("examples-", ".file");
    try (Workspace ws = new Workspace(notADirectory)) {
      Workspace.CliRun run = ws.cli(ECHO);
      assertThat(run.exit()).isEqualTo(Cli.UNAVAILABLE);
      assertThat(run.stderr()).contains("broker unavailable");
    } finally {
      Files.deleteIfExists(notADirectory);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(20));
    assertThat(BrokerLimits.CONNECT_CLEANUP.defaultLimit()).isEqualTo(Limit.ofSeconds(5));
  }
}
