package dev.lifecycle.examples.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.examples.InstalledMcpServers;
import dev.lifecycle.testing.ChildJvm;
import dev.lifecycle.testing.ChildJvm.Output;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP example as a user runs it: its own JVM, a real server-everything through npx (the copy
 * lifecycle-mcp's tests installed), tools listed, exit 0, nothing left behind.
 */
@NoProcessLeaks
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class McpToolsTest {
  @TempDir Path dir;

  @Test
  void listsTheToolsOfARealServerAndExits() throws Exception {
    List<String> server = InstalledMcpServers.everything();
    Output cli =
        ChildJvm.run(
            new ProcessBuilder(
                ChildJvm.nativeCommand(McpTools.class, server.toArray(String[]::new))),
            dir,
            Duration.ofSeconds(60));
    assertThat(cli.exitCode()).as("stderr: %s", cli.stderr()).isEqualTo(McpTools.OK);
    assertThat(cli.stdout()).contains("offers:").contains("  echo - ");
    assertThat(cli.stderr()).contains("StdioShutdownReport[CLOSED, ended by STDIN_EOF");
  }

  @Test
  void withoutACommandItPrintsUsage() {
    assertThat(McpTools.run(List.of())).isEqualTo(McpTools.USAGE);
  }
}
