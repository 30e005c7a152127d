package dev.lifecycle.examples;

import dev.lifecycle.testing.Requirement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The server-everything that lifecycle-mcp's tests install, for the examples that run one. */
public final class InstalledMcpServers {
  private static final Path SERVERS =
      Path.of("..", "lifecycle-mcp", "target", "mcp-servers").toAbsolutePath().normalize();

  private InstalledMcpServers() {}

  /**
   * The command that runs the installed server-everything through npx; skips the calling test
   * (fails it under {@code CI=true}) when Node or the installed server is missing.
   *
   * @return {@code npx --prefix <dir> --no-install mcp-server-everything}
   */
  public static List<String> everything() {
    Requirement.program("node");
    Requirement.program("npx");
    Requirement.require(
        Files.isExecutable(SERVERS.resolve("node_modules/.bin/mcp-server-everything")),
        "no server-everything under "
            + SERVERS
            + " (lifecycle-mcp's tests install it: run the reactor build)");
    return List.of("npx", "--prefix", SERVERS.toString(), "--no-install", "mcp-server-everything");
  }
}
