package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Self-termination in a child JVM spawned as a tree: every other process of its tree ends (members
 * that ignore SIGTERM, a setsid escapee, a double-forked setsid daemon) and the JVM exits with the
 * given code, whatever beforeKill and the shutdown hooks do. Needs the JNA platform (the child must
 * lead its own session, and signals its members by identity).
 */
@NoProcessLeaks
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SelfTerminationTest {
  @RegisterExtension final TreeReaper reaper = new TreeReaper();

  @ParameterizedTest(name = "beforeKill {1}, shutdown hook {2}")
  @CsvSource({"42, ok, ok", "43, throw, ok", "44, hang, ok", "45, ok, hang"})
  void endsEveryOtherMemberThenExitsWithTheCode(int exitCode, String hook, String shutdownHook)
      throws Exception {
    ProcessPlatform platform = ProcessPlatform.get();
    assumeTrue(platform.capabilities().newSession(), "needs spawning into a new session");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder =
        new ProcessBuilder(
                java,
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                SelfTerminatingMain.class.getName(),
                Integer.toString(exitCode),
                hook,
                shutdownHook)
            .redirectError(Redirect.INHERIT);
    ProcessTree tree = reaper.track(ProcessTree.spawn(platform, builder, TreeOptions.defaults()));
    BufferedReader out =
        new BufferedReader(
            new InputStreamReader(tree.leader().getInputStream(), StandardCharsets.UTF_8));
    assertThat(out.readLine()).isEqualTo("READY");
    // The JVM, sh and 2 sleeps in the group; the setsid sleep and the double-forked daemon outside.
    TreeView view =
        Await.until(
            Duration.ofSeconds(10),
            "child tree complete",
            tree::view,
            v -> v.members().size() == 4 && v.escapees().size() == 2);
    List<ProcessIdentity> everyone = view.all().stream().map(TreeMember::identity).toList();

    long started = System.nanoTime();
    try (OutputStream in = tree.leader().getOutputStream()) {
      in.write("go\n".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(tree.leader().waitFor(20, TimeUnit.SECONDS)).isTrue();
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    System.out.printf(
        "self-termination (beforeKill %s, shutdown hook %s): %d ms%n",
        hook, shutdownHook, took.toMillis());
    assertThat(tree.leader().exitValue()).isEqualTo(exitCode);
    Await.allGone(Duration.ofSeconds(5), everyone);
    tree.onExit().get(10, TimeUnit.SECONDS);
  }
}
