package dev.lifecycle.examples.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.examples.InstalledMcpServers;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The MCP example as a user runs it: its own JVM, a real server-everything through npx (the copy
 * lifecycle-mcp's tests installed), tools listed, exit 0, nothing left behind.
 */
@NoProcessLeaks
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class McpToolsTest {
  @Test
  void listsTheToolsOfARealServerAndExits() throws Exception {
    List<String> server = InstalledMcpServers.everything();
    Path out = Files.createTempFile("mcp-tools-", ".out");
    Path err = Files.createTempFile("mcp-tools-", ".err");
    try {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("--enable-native-access=ALL-UNNAMED");
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(McpTools.class.getName());
      command.addAll(server);
      Process cli =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      try {
        assertThat(cli.waitFor(60, TimeUnit.SECONDS)).as("the CLI exits by itself").isTrue();
      } finally {
        cli.destroyForcibly();
        cli.waitFor(10, TimeUnit.SECONDS);
      }
      String stdout = Files.readString(out, StandardCharsets.UTF_8);
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      assertThat(cli.exitValue()).as("stderr: %s", stderr).isEqualTo(McpTools.OK);
      assertThat(stdout).contains("offers:").contains("  echo - ");
      assertThat(stderr).contains("StdioShutdownReport[CLOSED, ended by STDIN_EOF");
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  @Test
  void withoutACommandItPrintsUsage() {
    assertThat(McpTools.run(List.of())).isEqualTo(McpTools.USAGE);
  }
}
