package dev.lifecycle.testkit;

import static dev.lifecycle.testkit.LifecycleAssertions.assertThatPids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SupervisedProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Proves the extension fails tests that leak and passes clean ones, by running inner test classes
 * (tagged {@value #INNER}, excluded from surefire's own run) through the JUnit Platform Launcher.
 */
@NoProcessLeaks
class ProcessLeakExtensionSelfTest {
  static final String INNER = "testkit-inner";
  static final Duration READY = Duration.ofSeconds(10);

  /** Pids the inner tests leaked on purpose; the outer tests prove them gone. */
  static final Set<Long> LEAKED = ConcurrentHashMap.newKeySet();

  private static final Duration LONG = Duration.ofSeconds(60);

  @Tag(INNER)
  @NoProcessLeaks(linger = "300ms")
  static class SetsidEscapee {
    @Test
    void leaksAnEscapee() throws Exception {
      Assumptions.assumeTrue(FixtureChild.setsidAvailable(), "util-linux setsid(1) is absent");
      FixtureChild child =
          FixtureChild.of(
              FixtureScript.create()
                  .setsid(FixtureScript.create().announce().sleep(LONG))
                  .ready()
                  .sleep(Duration.ofMillis(50))
                  .exit(0));
      Process p = child.start();
      String line = FixtureChild.awaitLine(p, "pid ", READY);
      LEAKED.add(Long.parseLong(line.substring(4).trim()));
      LifecycleAssertions.assertThat(p).exitsWithin(READY).withExitCode(0);
    }
  }

  @Tag(INNER)
  static class SpinningOrphan {
    @RegisterExtension
    static ProcessLeakExtension leaks =
        ProcessLeakExtension.with(LeakOptions.builder().linger(Duration.ofMillis(300)));

    @Test
    void leaksASpinningDoubleForkedDaemon(@TempDir Path dir) throws Exception {
      Path pids = dir.resolve("pids");
      FixtureChild child =
          FixtureChild.builder(
                  FixtureScript.create().doubleFork(FixtureScript.create().spin()).exit(0))
              .pidFile(pids)
              .build();
      SupervisedProcess p = child.spawn(ProcessPlatform.get());
      LEAKED.add(FixtureChild.awaitPids(pids, 2, READY).get(1));
      LifecycleAssertions.assertThat(p).exitsWithin(READY).withExitCode(0);
    }
  }

  @Tag(INNER)
  @NoProcessLeaks(linger = "2s")
  static class Clean {
    @Test
    void childThatExitsWithinTheLinger() throws Exception {
      // The grandchild outlives its parent by ~300 ms: the linger absorbs it.
      Process p =
          FixtureChild.of(
                  FixtureScript.create()
                      .spawn(1, FixtureScript.create().sleep(Duration.ofMillis(300)))
                      .exit(0))
              .start();
      LifecycleAssertions.assertThat(p).exitsWithin(READY).withExitCode(0);
    }

    @Test
    void orphanZombiesAreNotLeaks() throws Exception {
      // The orphan exits at once and may sit as a zombie under PID 1 for ~2 s: not a leak.
      Process p =
          FixtureChild.of(FixtureScript.create().doubleFork(FixtureScript.create().exit(0)).exit(0))
              .start();
      LifecycleAssertions.assertThat(p).exitsWithin(READY).withExitCode(0);
    }
  }

  @Tag(INNER)
  @NoProcessLeaks(linger = "200ms", action = LeakAction.WARN)
  static class WarnOnly {
    @Test
    void leaksButOnlyWarns(@TempDir Path dir) throws Exception {
      Path pids = dir.resolve("pids");
      Process p =
          FixtureChild.builder(
                  FixtureScript.create().doubleFork(FixtureScript.create().sleep(LONG)).exit(0))
              .pidFile(pids)
              .build()
              .start();
      LEAKED.add(FixtureChild.awaitPids(pids, 2, READY).get(1));
      p.waitFor();
    }
  }

  @Test
  void failsATestThatLeaksASetsidEscapeeAndKillsIt() {
    Assumptions.assumeTrue(FixtureChild.setsidAvailable(), "util-linux setsid(1) is absent");
    Outcome outcome = run(SetsidEscapee.class);
    Throwable failure = outcome.only("leaksAnEscapee").getThrowable().orElseThrow();
    long pid = outcome.leaked.get(0);
    assertThat(failure)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("SetsidEscapee.leaksAnEscapee()")
        .hasMessageContaining("leaked 1 process")
        .hasMessageContaining("pid " + pid)
        .hasMessageContaining(": sleep 60")
        .hasMessageMatching(
            "(?s).*why: (in the check's cgroup|seen as a descendant|carries a marker).*")
        .hasMessageMatching("(?s).*attribution: (CGROUP|EVIDENCE).*")
        .hasMessageContaining("parents: 1 (")
        .hasMessageContaining("killed, so later tests start clean")
        .hasMessageContaining("pid " + pid + " by ");
    assertThatPids(Set.of(pid)).areAllGone(Duration.ofSeconds(5));
  }

  @Test
  void failsATestThatLeaksASpinningOrphanAndKillsIt() {
    Outcome outcome = run(SpinningOrphan.class);
    Throwable failure =
        outcome.only("leaksASpinningDoubleForkedDaemon").getThrowable().orElseThrow();
    long pid = outcome.leaked.get(0);
    assertThat(failure)
        .hasMessageContaining("pid " + pid)
        .hasMessageContaining("fixture.sh spin")
        .hasMessageContaining("why: ");
    assertThatPids(Set.of(pid)).areAllGone(Duration.ofSeconds(5));
  }

  @Test
  void passesCleanTestsAndIgnoresZombies() {
    Outcome outcome = run(Clean.class);
    assertThat(outcome.results).hasSize(2);
    outcome.results.forEach(
        (name, result) ->
            assertThat(result.getStatus())
                .as(name + ": " + result.getThrowable().map(Throwable::toString).orElse(""))
                .isEqualTo(TestExecutionResult.Status.SUCCESSFUL));
  }

  @Test
  void warnPassesTheTestReportsAndKillsNothing() {
    Outcome outcome = run(WarnOnly.class);
    assertThat(outcome.only("leaksButOnlyWarns").getStatus())
        .isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
    long pid = outcome.leaked.get(0);
    ProcessPlatform platform = ProcessPlatform.get();
    var id = platform.identify(pid).orElseThrow();
    try {
      assertThat(outcome.entries)
          .anyMatch(e -> e.contains("pid " + pid) && e.contains("action WARN: nothing was killed"));
      assertThat(platform.probe(id)).isEqualTo(Liveness.ALIVE);
    } finally {
      platform.signal(id, Signal.KILL);
    }
    assertThatPids(Set.of(pid)).areAllGone(Duration.ofSeconds(5));
  }

  /** What happened when the Launcher ran an inner class. */
  record Outcome(
      Map<String, TestExecutionResult> results,
      Map<String, TestExecutionResult> classes,
      List<String> entries,
      List<Long> leaked) {
    TestExecutionResult only(String method) {
      assertThat(results).containsOnlyKeys(method);
      return results.get(method);
    }

    /** Asserts that {@code method} was the only test and that it and every class succeeded. */
    void assertOnlySucceeded(String method) {
      TestExecutionResult result = only(method);
      assertThat(result.getStatus())
          .as(result.toString())
          .isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
      assertThat(classes.values())
          .as(classes.toString())
          .allMatch(r -> r.getStatus() == TestExecutionResult.Status.SUCCESSFUL);
    }
  }

  static Outcome run(Class<?> inner) {
    return run(inner, Map.of());
  }

  /** Runs {@code inner} through the Launcher with these configuration parameters. */
  static Outcome run(Class<?> inner, Map<String, String> configuration) {
    LEAKED.clear();
    Map<String, TestExecutionResult> results = new ConcurrentHashMap<>();
    Map<String, TestExecutionResult> classes = new ConcurrentHashMap<>();
    ConcurrentLinkedQueue<String> entries = new ConcurrentLinkedQueue<>();
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(inner))
            .configurationParameters(configuration)
            .build();
    LauncherFactory.create()
        .execute(
            request,
            new TestExecutionListener() {
              @Override
              public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (id.isTest()) {
                  String name = id.getDisplayName();
                  results.put(name.substring(0, name.indexOf('(')), result);
                } else if (id.getSource().filter(ClassSource.class::isInstance).isPresent()) {
                  classes.put(id.getDisplayName(), result);
                }
              }

              @Override
              public void reportingEntryPublished(TestIdentifier id, ReportEntry entry) {
                entries.addAll(entry.getKeyValuePairs().values());
              }
            });
    return new Outcome(
        Map.copyOf(results),
        Map.copyOf(classes),
        new ArrayList<>(entries),
        new ArrayList<>(LEAKED));
  }
}
