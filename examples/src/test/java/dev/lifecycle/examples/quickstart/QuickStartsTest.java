package dev.lifecycle.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.examples.InstalledMcpServers;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.record.ReadResult;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.ChildJvm;
import dev.lifecycle.testing.ChildJvm.Output;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick starts as a user runs them: each in a JVM of its own, with nothing but its
 * {@code main}; what they print, that they exit by themselves, and that nothing is left.
 */
@NoProcessLeaks
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuickStartsTest {
  @TempDir Path dir;

  @Test
  void theMcpClientListsARealServersToolsAndExits() throws Exception {
    Output run =
        run(
            McpQuickStart.class,
            Map.of(),
            InstalledMcpServers.everything().toArray(String[]::new));
    assertThat(run.exitCode()).as("stderr: %s", run.stderr()).isZero();
    assertThat(run.stdout().lines()).as("the tools of server-everything").contains("echo");
  }

  @Test
  void theBrokerStartsOnceServesEveryCallAndLeavesWhenIdle() throws Exception {
    Path state = dir.resolve("state");
    Map<String, String> idle = Map.of("LIFECYCLE_BROKER_IDLE_TIMEOUT", "3s");
    Output first = run(BrokerQuickStart.class, idle, state.toString());
    assertThat(first.exitCode()).as("stderr: %s", first.stderr()).isZero();
    assertThat(first.stdout().strip()).isEqualTo("pong ping");
    RecordStore store = RecordStore.open(state);
    ProcessIdentity broker = owner(store.look("workspace"));

    Output second = run(BrokerQuickStart.class, idle, state.toString());
    assertThat(second.exitCode()).as("stderr: %s", second.stderr()).isZero();
    assertThat(second.stdout().strip()).isEqualTo("pong ping");
    assertThat(owner(store.look("workspace"))).as("the same broker served both").isEqualTo(broker);

    Await.until(Duration.ofSeconds(30), "the idle broker to exit", () -> Await.isGone(broker));
    assertThat(store.look("workspace").status()).isEqualTo(ReadResult.Status.ABSENT);
  }

  private static ProcessIdentity owner(ReadResult result) {
    assertThat(result.status()).as("%s", result).isEqualTo(ReadResult.Status.VALID);
    return result.record().orElseThrow().owner();
  }

  private Output run(Class<?> main, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(ChildJvm.nativeCommand(main, args));
    builder.environment().putAll(env);
    return ChildJvm.run(builder, dir, Duration.ofSeconds(60));
  }
}
