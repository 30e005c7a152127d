package dev.lifecycle.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.testing.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two test JVMs in one process group (as surefire {@code forkCount=2} runs them) start processes at
 * the same time, each under its own leak check: neither reports or kills the other's processes, and
 * each reports its own. Each JVM starts a child it keeps ({@code <dir>/<name>/sleep 300}) and an
 * orphan that stays in the shared group ({@code <dir>/<name>/sleep 301}); the directory in the
 * command line says whose a process is.
 */
@NoProcessLeaks
class TwoJvmsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @ParameterizedTest
  @ValueSource(strings = {"evidence", "auto"})
  void neitherJvmBlamesOrKillsTheOthersProcesses(String attribution, @TempDir Path dir)
      throws Exception {
    boolean cgroup = attribution.equals("auto") && LeakAttributionTest.cgroupTierExpected();
    Path go = dir.resolve("go");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("java.class.path");
    StringBuilder script = new StringBuilder();
    for (String name : List.of("A", "B")) {
      Path own = Files.createDirectory(dir.resolve(name));
      Files.createSymbolicLink(own.resolve("sleep"), Path.of("/bin/sleep"));
      script
          .append("'")
          .append(java)
          .append("' --enable-native-access=ALL-UNNAMED -cp '")
          .append(cp)
          .append("' '")
          .append(Child.class.getName())
          .append("' '")
          .append(own)
          .append("' '")
          .append(go)
          .append("' ")
          .append(attribution)
          .append(" >'")
          .append(dir.resolve(name + ".out"))
          .append("' 2>&1 & ");
    }
    script.append("wait");
    ProcessPlatform platform = ProcessPlatform.get();
    // Own session and group: the two JVMs share the group of this sh, like surefire's forks.
    SupervisedProcess sh =
        platform.spawn(
            new ProcessBuilder("/bin/sh", "-c", script.toString()), SpawnOptions.defaults());
    try {
      assertThat(
              Await.within(
                  WAIT,
                  () -> lines(dir, "A").contains("ready") && lines(dir, "B").contains("ready")))
          .as(() -> "both JVMs ready: A " + lines(dir, "A") + ", B " + lines(dir, "B"))
          .isTrue();
      Files.createFile(go);
      assertThat(sh.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as("both JVMs done").isTrue();
      for (String name : List.of("A", "B")) {
        String other = name.equals("A") ? "B" : "A";
        List<String> out = lines(dir, name);
        String report = String.join("\n", out);
        assertThat(out).as(report).contains("done");
        assertThat(report)
            .as(name + "'s report")
            .contains(dir.resolve(name) + "/sleep 300")
            .doesNotContain(dir.resolve(other).toString())
            .doesNotContain("cleanup FAILED");
        if (cgroup) {
          assertThat(report)
              .contains("attribution: CGROUP")
              .contains(dir.resolve(name) + "/sleep 301");
        } else {
          assertThat(report)
              .contains("attribution: EVIDENCE")
              .contains("is shared with other programs")
              .doesNotContain("orphan in this JVM's private process group");
        }
        // The other JVM's processes were never in this one's kill list.
        for (String line : out) {
          if (line.startsWith("KILLED ")) {
            assertThat(line).doesNotContain(dir.resolve(other).toString());
          }
        }
      }
    } finally {
      try {
        platform.signalGroup(sh.processGroupId(), Signal.KILL);
      } catch (RuntimeException e) {
        // the group is gone
      }
      // The evidence tier cannot see orphans without markers in a shared group (documented):
      // end them here, by the run's directory in their command line.
      for (long pid : LeakAttributionTest.withToken(dir.toString())) {
        platform.identify(pid).ifPresent(id -> platform.signal(id, Signal.KILL));
      }
      assertThat(Await.within(WAIT, () -> LeakAttributionTest.withToken(dir.toString()).isEmpty()))
          .isTrue();
    }
  }

  @Test
  void childClassIsRunnable() {
    assertThat(Child.class.getDeclaredMethods()).anyMatch(m -> m.getName().equals("main"));
  }

  private static List<String> lines(Path dir, String name) {
    try {
      Path file = dir.resolve(name + ".out");
      return Files.exists(file) ? Files.readAllLines(file) : List.of();
    } catch (IOException e) {
      return List.of();
    }
  }

  /** One test JVM: a leak check around two leaks of its own, started on a shared signal. */
  public static final class Child {
    private Child() {}

    public static void main(String[] args) throws Exception {
      Path own = Path.of(args[0]);
      Path go = Path.of(args[1]);
      LeakOptions options =
          LeakOptions.builder()
              .attribution(Attribution.valueOf(args[2].toUpperCase(java.util.Locale.ROOT)))
              .linger(Duration.ofMillis(300))
              .build();
      LeakTracker tracker = LeakTracker.start(options, "jvm " + own.getFileName());
      System.out.println("ready");
      System.out.flush();
      if (!Await.within(WAIT, () -> Files.exists(go))) {
        throw new IllegalStateException("no go");
      }
      String sleep = own.resolve("sleep").toString();
      Process kept = new ProcessBuilder(sleep, "300").start();
      Process forker =
          new ProcessBuilder("/bin/sh", "-c", "'" + sleep + "' 301 >/dev/null 2>&1 &").start();
      forker.waitFor();
      if (!Await.within(WAIT, () -> LeakAttributionTest.withToken(sleep + " 301").size() == 1)) {
        throw new IllegalStateException("the orphan did not start");
      }
      LeakReport report = tracker.kill(tracker.check(options.linger()));
      tracker.close();
      List<String> out = new ArrayList<>(List.of(report.render().split("\n")));
      for (KilledProcess k : report.kills()) {
        out.add("KILLED " + k.describe());
      }
      out.forEach(System.out::println);
      kept.waitFor(10, TimeUnit.SECONDS);
      System.out.println("done");
    }
  }
}
