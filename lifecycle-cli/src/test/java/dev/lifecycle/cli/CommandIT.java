package dev.lifecycle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.testing.Await;
import java.io.File;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The packaged command, as users run it: the launcher in target/ and {@code java -jar}. A real
 * orphan (a TERM-ignoring tree whose cookie names a process that is gone) is listed by {@code ps},
 * shown by a dry run and left running, then ended by {@code reap --yes}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CommandIT {
  private static final Path TARGET = Path.of("target").toAbsolutePath();
  private static final Duration BOUND = Duration.ofSeconds(30);

  private final ProcessPlatform platform = ProcessPlatform.get();
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void endWhatWasStarted() {
    for (Process p : started) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  private record Run(int code, String out, String err) {}

  private static Run launcher(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(TARGET.resolve("lifecycle").toString());
    command.addAll(List.of(args));
    return run(command);
  }

  private static Run jar(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    try (var files = Files.list(TARGET)) {
      command.add(
          files
              .filter(
                  p ->
                      p.getFileName()
                          .toString()
                          .matches("lifecycle-cli-.*[0-9T](-SNAPSHOT)?\\.jar"))
              .findFirst()
              .orElseThrow()
              .toString());
    }
    command.addAll(List.of(args));
    return run(command);
  }

  private static Run run(List<String> command) throws Exception {
    Path err = Files.createTempFile("lifecycle-err", ".txt");
    try {
      Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      return new Run(p.exitValue(), out, Files.readString(err));
    } finally {
      Files.deleteIfExists(err);
    }
  }

  @Test
  void helpUsageAndErrorsFollowTheDocumentedExitCodes() throws Exception {
    Run help = launcher("--help");
    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("ps", "reap", "doctor", "exit codes");
    for (String command : List.of("ps", "reap", "doctor")) {
      Run r = launcher(command, "--help");
      assertThat(r.code()).isZero();
      assertThat(r.out()).startsWith("usage: lifecycle " + command);
    }
    Run none = launcher();
    assertThat(none.code()).isEqualTo(Main.USAGE);
    Run unknown = launcher("frobnicate");
    assertThat(unknown.code()).isEqualTo(Main.USAGE);
    assertThat(unknown.err().strip().lines()).hasSize(1);
    Run badGrace = jar("reap", "--grace", "soon");
    assertThat(badGrace.code()).isEqualTo(Main.USAGE);
    assertThat(badGrace.err().strip().lines())
        .singleElement()
        .asString()
        .startsWith("lifecycle: --grace");
    Run badOption = launcher("ps", "--tree", "x");
    assertThat(badOption.code()).isEqualTo(Main.USAGE);
    assertThat(badOption.err().strip().lines()).hasSize(1);
  }

  @Test
  @SuppressWarnings("unchecked")
  void doctorSaysTheTierAndWhy() throws Exception {
    Run text = launcher("doctor");
    assertThat(text.code()).isZero();
    assertThat(text.out()).contains("tier", "tierReason", "kernel", "libc", "cgroup2Mount");
    Map<String, Object> json = (Map<String, Object>) MiniJson.parse(jar("doctor", "--json").out());
    assertThat(json.get("tier")).isIn("CGROUP", "SESSION");
    assertThat((String) json.get("tierReason")).isNotBlank();
    assertThat(json)
        .containsKeys("platform", "kernel", "libc", "cgroup2Mount", "jvmFlags", "stronger");
  }

  @Test
  @SuppressWarnings("unchecked")
  void anOrphanIsListedShownInADryRunAndEndedOnlyWithYes() throws Exception {
    ProcessIdentity dead = deadProcess();
    String cookie = SpawnOptions.newCookie(dead);
    ProcessBuilder b =
        new ProcessBuilder("sh", "-c", "trap '' TERM; sleep 300 & sleep 300 & wait")
            .redirectInput(Redirect.from(new File("/dev/null")))
            .redirectOutput(Redirect.DISCARD);
    b.environment().put(SpawnOptions.COOKIE_VARIABLE, cookie);
    Process orphan = b.start();
    started.add(orphan);
    Await.until(BOUND, "the orphan's children", () -> orphan.descendants().count(), n -> n == 2);
    List<ProcessIdentity> members = new ArrayList<>();
    members.add(platform.identify(orphan.pid()).orElseThrow());
    orphan.descendants().forEach(h -> members.add(platform.identify(h.pid()).orElseThrow()));

    Run ps = launcher("ps", "--json");
    assertThat(ps.code()).as(ps.err()).isZero();
    Map<String, Object> inventory = (Map<String, Object>) MiniJson.parse(ps.out());
    Map<String, Object> tree =
        ((List<Map<String, Object>>) inventory.get("trees"))
            .stream().filter(t -> cookie.equals(t.get("id"))).findFirst().orElseThrow();
    assertThat(((Map<String, Object>) tree.get("owner")).get("verdict")).isEqualTo("GONE");
    assertThat(((Map<String, Object>) tree.get("owner")).get("pid")).isEqualTo((double) dead.pid());
    assertThat((List<?>) tree.get("members")).hasSize(3);
    assertThat(tree.get("reap")).isEqualTo(true);

    Run table = launcher("ps");
    assertThat(table.out()).contains("SESSION " + cookie, "GONE", "sleep 300");

    // Scoped to this test's tree: other programs' orphans on this machine are not the test's.
    Run dry = launcher("reap", "--tree", cookie);
    assertThat(dry.code()).isZero();
    assertThat(dry.out()).contains(cookie + ": would end 3 processes", "dry run");
    assertThat(members).allMatch(m -> platform.probe(m) == Liveness.ALIVE);

    Run reap = launcher("reap", "--yes", "--grace", "200ms", "--tree", cookie);
    assertThat(reap.code()).as(reap.out() + reap.err()).isZero();
    assertThat(reap.out()).contains(cookie + ": ended by KILL");
    Await.until(
        BOUND,
        "every member gone",
        () -> members.stream().filter(m -> platform.probe(m) != Liveness.GONE).count(),
        n -> n == 0);
  }

  private ProcessIdentity deadProcess() throws Exception {
    Process p = new ProcessBuilder("sleep", "30").start();
    ProcessIdentity id = platform.identify(p.pid()).orElseThrow();
    p.destroyForcibly().waitFor();
    Await.until(BOUND, "gone", () -> platform.probe(id), l -> l == Liveness.GONE);
    return id;
  }
}
