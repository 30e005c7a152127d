package dev.lifecycle.testkit;

import static dev.lifecycle.testkit.LifecycleAssertions.assertThat;
import static dev.lifecycle.testkit.LifecycleAssertions.assertThatPids;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.testing.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@NoProcessLeaks(linger = "1s")
class FixtureChildTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration LONG = Duration.ofSeconds(60);
  private final ProcessPlatform platform = ProcessPlatform.get();

  @Test
  void exitsWithTheScriptedCodeAndPrintsReady() throws Exception {
    Process p = FixtureChild.of(FixtureScript.create().print("hello").ready().exit(7)).start();
    long pid = FixtureChild.awaitReady(p, WAIT);
    Assertions.assertThat(pid).isEqualTo(p.pid());
    assertThat(p).exitsWithin(WAIT).withExitCode(7);
  }

  @Test
  void spawnsFlatChildrenAndANestedChainAllCarryingTheMarkers(@TempDir Path dir) throws Exception {
    Path pids = dir.resolve("pids");
    FixtureChild child =
        FixtureChild.builder(
                FixtureScript.create()
                    .spawn(3, FixtureScript.create().sleep(LONG))
                    .chain(3, FixtureScript.create().sleep(LONG))
                    .ready()
                    .sleep(LONG))
            .pidFile(pids)
            .build();
    SupervisedProcess p = child.spawn(platform);
    try {
      FixtureChild.awaitReady(p, WAIT);
      // 1 root + 3 flat + 3 chain levels announce themselves in the pid file.
      Await.within(WAIT, () -> lines(pids).size() == 7);
      Assertions.assertThat(lines(pids)).hasSize(7);
      ProcessTable table = platform.snapshot();
      List<ProcessInfo> tree = table.descendants(p.pid());
      Assertions.assertThat(tree).hasSize(6);
      // A process that announced itself may still be inside the execve that follows, when its
      // environment is not readable yet: poll (bounded) for all seven.
      Await.within(
          WAIT,
          () ->
              platform.findByEnvironment(SpawnOptions.COOKIE_VARIABLE, child.cookie()).size() == 7);
      Assertions.assertThat(
              platform.findByEnvironment(SpawnOptions.COOKIE_VARIABLE, child.cookie()))
          .hasSize(7);
      Assertions.assertThat(
              platform.findByEnvironment(FixtureChild.OWNER_VARIABLE, FixtureChild.ownerValue()))
          .hasSizeGreaterThanOrEqualTo(7);
      // chain depth: the deepest level is 3 parents below the root
      long deepest =
          tree.stream().mapToLong(i -> depth(table, i.pid(), p.pid())).max().orElseThrow();
      Assertions.assertThat(deepest).isEqualTo(3);
    } finally {
      child.killAll(WAIT);
    }
  }

  @Test
  void ignoredTermKeepsTheWholeTreeRunningUntilKill() throws Exception {
    FixtureChild child =
        FixtureChild.of(
            FixtureScript.create()
                .ignoreTerm()
                .spawn(2, FixtureScript.create().sleep(LONG))
                .ready()
                .sleep(LONG));
    SupervisedProcess p = child.spawn(platform);
    try {
      FixtureChild.awaitReady(p, WAIT);
      // A just-forked child's environment is readable only once its execve has laid it out:
      // poll (bounded) until all three carry the cookie.
      Set<Long> all =
          Await.within(
              WAIT,
              () -> platform.findByEnvironment(SpawnOptions.COOKIE_VARIABLE, child.cookie()),
              found -> found.size() >= 3);
      Assertions.assertThat(all).hasSize(3);
      for (long pid : all) {
        platform.signal(platform.identify(pid).orElseThrow(), Signal.TERM);
      }
      assertThatThrownBy(() -> assertThatPids(all).areAllGone(Duration.ofMillis(300)))
          .hasMessageContaining("3 still run")
          .hasMessageContaining("SLEEPING");
      child.killAll(WAIT);
      assertThatPids(all).areAllGone(WAIT);
    } finally {
      child.killAll(WAIT);
    }
  }

  @Test
  void exitOnTermExitsWithTheCode() throws Exception {
    Process p = FixtureChild.of(FixtureScript.create().exitOnTerm(42).ready().sleep(LONG)).start();
    FixtureChild.awaitReady(p, WAIT);
    p.destroy();
    assertThat(p).exitsWithin(WAIT).withExitCode(42);
  }

  @Test
  void setsidEscapeeLeavesTheSessionAndDoubleForkIsReparented() throws Exception {
    Assumptions.assumeTrue(FixtureChild.setsidAvailable(), "util-linux setsid(1) is absent");
    FixtureChild child =
        FixtureChild.of(
            FixtureScript.create()
                .setsid(FixtureScript.create().announce().sleep(LONG))
                .doubleFork(FixtureScript.create().announce().sleep(LONG))
                .ready()
                .sleep(LONG));
    SupervisedProcess p = child.spawn(platform);
    try {
      long a = pidOf(FixtureChild.awaitLine(p, "pid ", WAIT));
      long b = pidOf(FixtureChild.awaitLine(p, "pid ", WAIT));
      // The daemon announces itself before its intermediate parent has exited: poll (bounded)
      // until neither announced process is a descendant of the fixture any more.
      ProcessTable table =
          Await.within(
              WAIT,
              platform::snapshot,
              t -> t.descendants(p.pid()).stream().noneMatch(d -> d.pid() == a || d.pid() == b));
      ProcessInfo escapee = table.get(a).orElseThrow();
      ProcessInfo other = table.get(b).orElseThrow();
      ProcessInfo setsidOne = escapee.sid() == escapee.pid() ? escapee : other;
      ProcessInfo daemon = setsidOne == escapee ? other : escapee;
      Assertions.assertThat(setsidOne.sid()).isEqualTo(setsidOne.pid()).isNotEqualTo(p.pid());
      Assertions.assertThat(daemon.ppid()).isNotEqualTo(p.pid());
      Assertions.assertThat(table.descendants(p.pid()))
          .extracting(ProcessInfo::pid)
          .doesNotContain(daemon.pid());
    } finally {
      child.killAll(WAIT);
    }
  }

  @Test
  void closedStdoutReaderMakesWriteUntilEpipeExitWithItsCode() throws Exception {
    Process p = FixtureChild.of(FixtureScript.create().writeUntilEpipe(9)).start();
    p.getInputStream().read();
    p.getInputStream().close();
    assertThat(p).exitsWithin(WAIT).withExitCode(9);
    Assertions.assertThat(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
        .contains("epipe " + p.pid());
  }

  @Test
  void writeForeverDiesBySigpipe() throws Exception {
    Process p = FixtureChild.of(FixtureScript.create().writeForever()).start();
    p.getInputStream().read();
    p.getInputStream().close();
    assertThat(p).exitsWithin(WAIT).withExitCode(128 + 13);
  }

  @Test
  void malformedScriptsExit98WithTheReason() throws Exception {
    Process p = new ProcessBuilder(FixtureChild.of(FixtureScript.create()).command()).start();
    assertThat(p).exitsWithin(WAIT).withExitCode(0);
    List<String> bad = new java.util.ArrayList<>(FixtureChild.of(FixtureScript.create()).command());
    bad.addAll(List.of("spawn", "2", "{", "sleep", "1"));
    Process q = new ProcessBuilder(bad).start();
    assertThat(q).exitsWithin(WAIT).withExitCode(98);
    Assertions.assertThat(new String(q.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
        .contains("unbalanced");
  }

  @Test
  void scriptWordsAreValidated() {
    assertThatThrownBy(() -> FixtureScript.create().exit(256)).hasMessageContaining("0-255");
    assertThatThrownBy(() -> FixtureScript.create().print("two words"))
        .hasMessageContaining("one word");
    Assertions.assertThat(FixtureScript.create().sleep(Duration.ofMillis(1500)).words())
        .containsExactly("sleep", "1.5");
  }

  private static long pidOf(String line) {
    return Long.parseLong(line.substring(line.indexOf(' ') + 1).trim());
  }

  private static long depth(ProcessTable table, long pid, long root) {
    long d = 0;
    long cur = pid;
    while (cur != root && d < 20) {
      cur = table.get(cur).map(ProcessInfo::ppid).orElse(root);
      d++;
    }
    return d;
  }

  private static List<String> lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file) : List.of();
    } catch (IOException e) {
      return List.of();
    }
  }
}
