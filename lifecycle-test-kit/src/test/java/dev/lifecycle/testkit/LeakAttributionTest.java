package dev.lifecycle.testkit;

import static dev.lifecycle.testkit.ProcessLeakExtensionSelfTest.INNER;
import static dev.lifecycle.testkit.ProcessLeakExtensionSelfTest.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.Requirement;
import dev.lifecycle.testkit.ProcessLeakExtensionSelfTest.Outcome;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.tree.ProcessTree;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult.Status;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * What the leak check attributes, and on which evidence: real daemons started with a plain {@link
 * ProcessBuilder} (each leaves its session and parent), an unclosed {@link ProcessTree} whose
 * leader is {@code setsid}, a process a pre-existing service thread starts and declares shared, a
 * class-level leak, and a JUnit 4 test run through Vintage. Every process carries the run's unique
 * directory or token in its command line; {@link #endWhatIsLeft} proves none is left, and kills by
 * identity whatever a broken kit left so the suite stays clean.
 */
@NoProcessLeaks
class LeakAttributionTest {
  static final Duration WAIT = Duration.ofSeconds(10);

  /** Unique per run: every process of this class names it in its command line. */
  static Path dir;

  @BeforeEach
  void makeDir() throws IOException {
    dir =
        Files.createTempDirectory(
            "lifecycle-attr-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Files.createSymbolicLink(dir.resolve("sleep"), Path.of("/bin/sleep"));
  }

  /** {@code sleep} by a path inside the run's directory, so its command line names the run. */
  static String sleep() {
    return dir.resolve("sleep").toString();
  }

  @AfterEach
  void endWhatIsLeft() {
    List<Long> left = withToken(dir.toString());
    ProcessPlatform platform = ProcessPlatform.get();
    for (long pid : left) {
      platform.identify(pid).ifPresent(id -> platform.signal(id, Signal.KILL));
    }
    assertThat(left).as("processes of " + dir + " left behind").isEmpty();
  }

  /** Live pids whose command line contains {@code token}. */
  static List<Long> withToken(String token) {
    List<Long> out = new ArrayList<>();
    for (long pid : ProcFs.pids()) {
      Optional<List<String>> line = ProcFs.commandLine(pid);
      boolean alive = ProcFs.stat(pid).map(p -> !p.hasExited()).orElse(false);
      if (alive && line.isPresent() && String.join(" ", line.get()).contains(token)) {
        out.add(pid);
      }
    }
    return out;
  }

  static boolean cgroupTierExpected() {
    boolean available = CgroupProbe.available();
    if (!available && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI=true but no writable cgroup v2: " + CgroupProbe.reason());
    }
    return available;
  }

  static void start(String... command) throws Exception {
    // Output to a file: a daemon that keeps our stdout would hold a pipe open forever.
    Path log = Files.createTempFile(dir, "start", ".log");
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean exited = p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
    String out = Files.readString(log);
    if (!exited || p.exitValue() != 0) {
      throw new AssertionError(String.join(" ", command) + " failed: " + out);
    }
  }

  /** The program each of {@link Daemons}' tests starts (setsid is util-linux's, always there). */
  static final Map<String, String> DAEMON_PROGRAMS =
      Map.of(
          "startStopDaemon", "start-stop-daemon",
          "daemonize", "daemonize",
          "sshAgent", "ssh-agent",
          "dbusDaemon", "dbus-daemon",
          "gpgAgent", "gpg-agent",
          "redis", "redis-server",
          "nginx", "nginx");

  /** A program the machine may lack, by its path, or the calling inner test skips. */
  static String program(String name) {
    return Requirement.program(name).toString();
  }

  @Tag(INNER)
  @NoProcessLeaks(linger = "300ms")
  static class Daemons {
    @Test
    void setsidFork() throws Exception {
      start("setsid", "-f", sleep(), "300");
    }

    @Test
    void startStopDaemon() throws Exception {
      start(
          program("start-stop-daemon"),
          "--start",
          "--background",
          "--pidfile",
          dir.resolve("ssd.pid").toString(),
          "--make-pidfile",
          "--exec",
          sleep(),
          "--",
          "300");
    }

    @Test
    void daemonize() throws Exception {
      start(program("daemonize"), sleep(), "300");
    }

    @Test
    void sshAgent() throws Exception {
      start(program("ssh-agent"), "-a", dir.resolve("agent.sock").toString());
    }

    @Test
    void dbusDaemon() throws Exception {
      start(
          program("dbus-daemon"),
          "--session",
          "--fork",
          "--nopidfile",
          "--address=unix:path=" + dir.resolve("bus"));
    }

    @Test
    void gpgAgent() throws Exception {
      Path home = Files.createDirectory(dir.resolve("gnupg"));
      start(program("gpg-agent"), "--homedir", home.toString(), "--daemon");
    }

    @Test
    void redis() throws Exception {
      start(
          program("redis-server"),
          "--daemonize",
          "yes",
          "--port",
          "0",
          "--unixsocket",
          dir.resolve("redis.sock").toString(),
          "--dir",
          dir.toString(),
          "--pidfile",
          dir.resolve("redis.pid").toString());
    }

    @Test
    void nginx() throws Exception {
      Files.createDirectories(dir.resolve("logs"));
      Files.writeString(
          dir.resolve("nginx.conf"),
          "worker_processes 2;\n"
              + "pid "
              + dir.resolve("nginx.pid")
              + ";\nerror_log "
              + dir.resolve("error.log")
              + ";\nevents {}\nhttp { access_log off; server { listen unix:"
              + dir.resolve("nginx.sock")
              + "; } }\n");
      start(program("nginx"), "-p", dir.toString(), "-c", dir.resolve("nginx.conf").toString());
    }
  }

  /**
   * Every daemon whose program is on the PATH is found in the check's cgroup, reported and killed;
   * a missing program skips its inner test, and this test then reports them all as unmet (a skip,
   * or under CI=true a failure) after checking the others.
   */
  @Test
  void everyDaemonIsFoundInTheCgroupReportedAndKilled() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        cgroupTierExpected(), () -> "no writable cgroup v2: " + CgroupProbe.reason());
    Optional<String> missing = Requirement.missing(DAEMON_PROGRAMS.values());
    Outcome outcome = run(Daemons.class);
    assertThat(outcome.results()).hasSize(8);
    outcome
        .results()
        .forEach(
            (name, result) -> {
              String program = DAEMON_PROGRAMS.get(name);
              if (program != null && Requirement.onPath(program).isEmpty()) {
                assertThat(result.getThrowable().orElseThrow())
                    .as(name)
                    .hasMessageContaining("needs " + program + " on PATH");
                return;
              }
              assertThat(result.getStatus()).as(name).isEqualTo(Status.FAILED);
              assertThat(result.getThrowable().orElseThrow())
                  .as(name)
                  .hasMessageContaining("attribution: CGROUP")
                  .hasMessageContaining("why: in the check's cgroup (exact)")
                  .hasMessageContaining("by cgroup.kill")
                  .hasMessageNotContaining("cleanup FAILED");
              // redis rewrites its command line to its title; the others keep the run's directory.
              if (name.equals("redis")) {
                assertThat(result.getThrowable().orElseThrow().getMessage())
                    .contains("redis-server");
              }
              if (name.equals("nginx")) {
                assertThat(result.getThrowable().orElseThrow().getMessage())
                    .contains("nginx: master process")
                    .contains("nginx: worker process");
              }
            });
    assertThat(withToken(dir.toString())).isEmpty();
    missing.ifPresent(Requirement::unmet);
  }

  @Tag(INNER)
  @NoProcessLeaks(linger = "300ms")
  static class UnclosedSetsidTree {
    @Test
    void spawnsAndNeverCloses() throws Exception {
      ProcessTree.spawn(new ProcessBuilder("setsid", sleep(), "300"));
    }
  }

  @Test
  void anUnclosedTreeWhoseLeaderIsSetsidIsReportedInTheEvidenceTierThroughTheLibrary() {
    Outcome outcome =
        run(UnclosedSetsidTree.class, Map.of(LeakOptions.ATTRIBUTION_PARAMETER, "evidence"));
    assertThat(outcome.only("spawnsAndNeverCloses").getThrowable().orElseThrow())
        .hasMessageContaining("attribution: EVIDENCE")
        .hasMessageContaining(sleep() + " 300")
        .hasMessageContaining("why: member of a ProcessTree spawned during the check")
        .hasMessageNotContaining("cleanup FAILED");
    assertThat(withToken(dir.toString())).isEmpty();
  }

  /**
   * The sampler's evidence: a process seen as this JVM's descendant is blamed after its parent
   * exited, when it is nobody's descendant, in a session of its own and carries no marker.
   */
  @Test
  void aProcessSampledAsADescendantIsBlamedInTheEvidenceTierAfterItsParentExits() throws Exception {
    LeakOptions options =
        LeakOptions.builder()
            .attribution(Attribution.EVIDENCE)
            .sampleEvery(Duration.ZERO) // only the explicit sample below
            .build();
    try (LeakTracker tracker = LeakTracker.start(options, "sampled")) {
      Process sh =
          new ProcessBuilder("sh", "-c", "setsid " + sleep() + " 300 & echo $!; read x")
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      long pid;
      try (BufferedReader out =
          new BufferedReader(new InputStreamReader(sh.getInputStream(), StandardCharsets.UTF_8))) {
        pid = Long.parseLong(out.readLine().trim());
        tracker.sample();
        sh.getOutputStream().close(); // sh exits; the sleep is re-parented away from this JVM
        assertThat(sh.waitFor(10, TimeUnit.SECONDS)).isTrue();
      }
      LeakReport report = tracker.check(Duration.ZERO);
      assertThat(tracker.kill(report).survivors()).isEmpty();
      assertThat(report.leaks())
          .filteredOn(l -> l.pid() == pid)
          .singleElement()
          .extracting(LeakedProcess::reason)
          .isEqualTo(LeakedProcess.Reason.SEEN_AS_DESCENDANT);
    }
    assertThat(withToken(dir.toString())).isEmpty();
  }

  @Test
  void anUnclosedTreeWhoseLeaderIsSetsidIsReportedInTheCgroupTier() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        cgroupTierExpected(), () -> "no writable cgroup v2: " + CgroupProbe.reason());
    Outcome outcome =
        run(UnclosedSetsidTree.class, Map.of(LeakOptions.ATTRIBUTION_PARAMETER, "cgroup"));
    assertThat(outcome.only("spawnsAndNeverCloses").getThrowable().orElseThrow())
        .hasMessageContaining("attribution: CGROUP")
        .hasMessageContaining(sleep() + " 300")
        .hasMessageNotContaining("cleanup FAILED");
    assertThat(withToken(dir.toString())).isEmpty();
  }

  /** A service started before any test; it starts a shared server lazily, during a test. */
  @Tag(INNER)
  @NoProcessLeaks(linger = "300ms")
  static class SharedService {
    static ExecutorService service;

    @BeforeAll
    static void startService() {
      service = Executors.newSingleThreadExecutor();
    }

    @Test
    void usesTheServiceWhichStartsItsServerNow() throws Exception {
      Process server =
          service
              .submit(
                  () -> {
                    Process p = new ProcessBuilder(sleep(), "300").start();
                    SharedProcesses.declare(p);
                    return p;
                  })
              .get();
      assertThat(server.isAlive()).isTrue();
    }
  }

  @Test
  void aDeclaredSharedServerIsNeitherReportedNorKilled() {
    run(SharedService.class).assertOnlySucceeded("usesTheServiceWhichStartsItsServerNow");
    List<Long> alive = withToken(dir.toString());
    assertThat(alive).as("the shared server outlives the checks").hasSize(1);
    SharedService.service.shutdownNow();
    // Declared processes are the user's to end.
    ProcessPlatform.get().signal(identity(alive.get(0)), Signal.KILL);
    org.assertj.core.api.Assertions.assertThat(
            Await.within(WAIT, () -> withToken(dir.toString()).isEmpty()))
        .isTrue();
  }

  /** The first use of the library's JVM-wide tether happens inside a tracked test. */
  @Tag(INNER)
  @NoProcessLeaks(linger = "300ms")
  static class FirstTetherUse {
    @Test
    void startsTheSharedTether() {
      assertThat(Tether.shared().isActive()).isTrue();
    }
  }

  @Test
  void theSharedTetherIsTheJvmsHelperNeitherReportedNorKilled() {
    Tether.sharedSidecar().ifPresent(id -> Tether.shared().close()); // so the inner test starts it
    assertThat(Tether.sharedSidecar()).isEmpty();
    run(FirstTetherUse.class).assertOnlySucceeded("startsTheSharedTether");
    ProcessIdentity sidecar = Tether.sharedSidecar().orElseThrow();
    assertThat(ProcessPlatform.get().probe(sidecar))
        .as("the sidecar outlives the checks")
        .isEqualTo(dev.lifecycle.process.Liveness.ALIVE);
  }

  @Tag(INNER)
  @NoProcessLeaks(linger = "300ms")
  static class ClassFixtureLeak {
    @BeforeAll
    static void startsAFixtureAndForgetsIt() throws Exception {
      new ProcessBuilder(sleep(), "300").start();
    }

    @Test
    void clean() {}
  }

  @Test
  void aLeakOfTheClassFixturesFailsTheClassNotTheMethod() {
    Outcome outcome = run(ClassFixtureLeak.class);
    assertThat(outcome.only("clean").getStatus()).isEqualTo(Status.SUCCESSFUL);
    var result =
        outcome.classes().entrySet().stream()
            .filter(e -> e.getKey().endsWith("ClassFixtureLeak"))
            .findFirst()
            .orElseThrow()
            .getValue();
    assertThat(result.getStatus()).isEqualTo(Status.FAILED);
    assertThat(result.getThrowable().orElseThrow())
        .hasMessageContaining("ClassFixtureLeak leaked 1 process")
        .hasMessageContaining(sleep() + " 300");
    assertThat(withToken(dir.toString())).isEmpty();
  }

  /**
   * A JUnit 4 test (Vintage engine); never found by surefire itself (a nested class). Its leak is a
   * plain child, which every attribution tier finds: what is under test is the listener, not the
   * tier (a setsid daemon without a cookie is found only in the CGROUP tier, tested above).
   */
  public static class Junit4Leak {
    @org.junit.Test
    public void leaksAChild() throws Exception {
      new ProcessBuilder(sleep(), "300")
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
    }
  }

  @Test
  void aJunit4TestIsCheckedByThePlatformListener() {
    ConcurrentLinkedQueue<LeakReport> reports = new ConcurrentLinkedQueue<>();
    ProcessLeakListener listener =
        new ProcessLeakListener(LeakOptions.builder().linger("300ms"), reports::add);
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(Junit4Leak.class))
                .build(),
            listener);
    assertThat(reports).hasSize(1);
    LeakReport report = reports.peek();
    assertThat(report.testName()).contains("leaksAChild");
    assertThat(report.leaks()).hasSize(1);
    assertThat(report.leaks().get(0).commandLine()).contains(sleep() + " 300");
    assertThat(report.kills())
        .extracting(k -> k.identity().pid())
        .contains(report.leaks().get(0).pid());
    assertThat(withToken(dir.toString())).isEmpty();
  }

  /** Whether this JVM can create and enter a cgroup (as the kit does), and why not. */
  static final class CgroupProbe {
    private static String reason = "";
    private static final boolean AVAILABLE = probe();

    static boolean available() {
      return AVAILABLE;
    }

    static String reason() {
      return reason;
    }

    private static boolean probe() {
      try {
        TestCgroup c = TestCgroup.enter("probe", Optional.empty());
        c.leave();
        c.remove();
        return true;
      } catch (TestCgroup.Unavailable | IOException e) {
        reason = e.getMessage();
        return false;
      }
    }
  }

  static ProcessIdentity identity(long pid) {
    return ProcessPlatform.get().identify(pid).orElseThrow();
  }
}
