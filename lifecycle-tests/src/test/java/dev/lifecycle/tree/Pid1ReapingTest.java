package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.testing.Requirement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JVM as PID 1 (a container without an init): a child JVM runs {@link Pid1Main} as the init of
 * a new PID namespace ({@code unshare --pid --fork --mount-proc}, root only), so every orphan of
 * its tree is re-parented to it. After the termination no zombie may be left in the namespace, a
 * plain JDK child keeps its exit code, the PID 1 warning is logged once, and a termination that is
 * not proven complete is logged at WARN.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Pid1ReapingTest {

  @ParameterizedTest(name = "containment {0}")
  @ValueSource(strings = {"session", "auto"})
  void asPid1TheTreesZombiesAreReapedAndJdkExitCodesAreKept(String containment) throws Exception {
    Requirement.require(
        "root".equals(System.getProperty("user.name")), "a new PID namespace needs root");
    Path unshare = Requirement.program("unshare");
    Path dir = Files.createTempDirectory("lifecycle-pid1");
    Path out = dir.resolve("stdout.txt");
    Path err = dir.resolve("stderr.txt");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessTree ns =
        ProcessTree.spawn(
            new ProcessBuilder(
                    unshare.toString(),
                    "--pid",
                    "--fork",
                    "--mount-proc",
                    "--kill-child",
                    java,
                    "--enable-native-access=ALL-UNNAMED",
                    "-Dlifecycle.containment=" + containment,
                    "-cp",
                    System.getProperty("java.class.path"),
                    Pid1Main.class.getName())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile()),
            TreeOptions.defaults());
    try {
      boolean exited = ns.leader().waitFor(90, TimeUnit.SECONDS);
      String stdout = Files.readString(out);
      String stderr = Files.readString(err);
      String both = stdout + "\n--- stderr ---\n" + stderr;
      assertThat(exited).as(both).isTrue();
      assertThat(ns.leader().exitValue()).as(both).isZero();
      List<String> lines = stdout.lines().toList();
      // Proven only where the tier can prove it; nothing seen left in either.
      boolean cgroup = lines.contains("TIER CGROUP");
      assertThat(lines)
          .as(both)
          .contains("PID 1", "ADOPTED 4", "ESCAPEE 2", "NONE-SEEN true", "JDK-EXIT 42");
      assertThat(lines).as(both).contains("COMPLETE " + cgroup);
      assertThat(lines).as(both).contains("ZOMBIES 0 []");
      assertThat(lines)
          .as(both)
          .contains("SECOND-TIER SESSION", "SECOND-COMPLETE false", "SECOND-NONE-SEEN false");
      assertThat(stderr.split("this JVM runs as PID 1", -1)).as(both).hasSize(2); // once
      assertThat(stderr).as(both).contains("docker run --init", "shareProcessNamespace");
      assertThat(stderr).as(both).containsPattern("WARN .*tree \\d+ not proven gone: .*INCOMPLETE");
    } finally {
      ns.terminate(Duration.ZERO);
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
      Files.deleteIfExists(dir);
    }
  }
}
