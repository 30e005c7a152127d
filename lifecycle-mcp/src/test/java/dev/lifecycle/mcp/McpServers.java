package dev.lifecycle.mcp;

import dev.lifecycle.testing.Requirement;
import io.modelcontextprotocol.client.transport.ServerParameters;
import java.io.IOException;
import java.io.InputStream;
import java.lang.ProcessBuilder.Redirect;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The real MCP servers of the tests: {@code @modelcontextprotocol/server-everything} at the version
 * pinned in {@code mcp-servers/package.json} (with its lock file), installed once into a cache
 * folder under {@code target/} and run through {@code npx}, so every server is the chain {@code npm
 * exec -> sh -> node}. Fixtures are Node preloads ({@code NODE_OPTIONS=--require}) that change only
 * the server process.
 *
 * <p>Where node, npm or npx is not on the PATH or the install fails, {@link #require()} skips the
 * test with the reason, except under {@code CI=true}, where it fails: CI must run them.
 */
final class McpServers {
  /** Every server process carries this variable; its value names one test's servers. */
  static final String TAG = "LIFECYCLE_MCP_TEST_TAG";

  static final String BIN = "mcp-server-everything";

  private static final long INSTALL_SECONDS = 300;
  private static volatile Optional<String> problem;

  enum Fixture {
    NONE(null),
    LINGER("linger.cjs"),
    IGNORE_TERM("ignore-term.cjs"),
    REFUSE_INITIALIZE("refuse-initialize.cjs"),
    STALL("stall.cjs"),
    NOISY_STDOUT("noisy-stdout.cjs");

    final String file;

    Fixture(String file) {
      this.file = file;
    }
  }

  private McpServers() {}

  static Path cache() {
    return Path.of(System.getProperty("lifecycle.mcp.servers", "target/mcp-servers"))
        .toAbsolutePath();
  }

  /** Skips (or under CI=true fails) the calling test unless the servers can run here. */
  static void require() {
    Requirement.program("node");
    Requirement.program("npx");
    Path npm = Requirement.program("npm");
    Optional<String> why = problem;
    if (why == null) {
      synchronized (McpServers.class) {
        if (problem == null) {
          problem = install(npm);
        }
        why = problem;
      }
    }
    if (why.isPresent()) {
      Requirement.unmet("MCP server tests cannot run: " + why.get());
    }
  }

  private static Optional<String> install(Path npmProgram) {
    Path cache = cache();
    if (Files.isExecutable(cache.resolve("node_modules/.bin/" + BIN))) {
      return Optional.empty();
    }
    try {
      Files.createDirectories(cache);
      for (String file : List.of("package.json", "package-lock.json")) {
        try (InputStream in = McpServers.class.getResourceAsStream("/mcp-servers/" + file)) {
          Files.copy(in, cache.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      Path log = cache.resolve("npm-ci.log");
      Process npm =
          new ProcessBuilder(
                  npmProgram.toString(), "ci", "--no-audit", "--no-fund", "--loglevel=error")
              .directory(cache.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .redirectInput(Redirect.from(new java.io.File("/dev/null")))
              .start();
      try {
        if (!npm.waitFor(INSTALL_SECONDS, TimeUnit.SECONDS)) {
          return Optional.of(
              "npm ci did not finish in " + INSTALL_SECONDS + " s (see " + log + ")");
        }
      } finally {
        npm.destroyForcibly(); // no-op once exited; ends a hung install
        npm.waitFor(10, TimeUnit.SECONDS);
      }
      if (npm.exitValue() != 0) {
        return Optional.of(
            "npm ci failed with "
                + npm.exitValue()
                + ": "
                + Files.readString(log, StandardCharsets.UTF_8).strip());
      }
      return Files.isExecutable(cache.resolve("node_modules/.bin/" + BIN))
          ? Optional.empty()
          : Optional.of("npm ci did not install " + BIN);
    } catch (IOException e) {
      return Optional.of("cannot install the MCP servers into " + cache + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted while installing the MCP servers");
    }
  }

  /** A fresh tag for one test's servers. */
  static String newTag() {
    return "t" + UUID.randomUUID().toString().replace("-", "");
  }

  /** The SDK's parameters for server-everything through npx, tagged, with a fixture. */
  static ServerParameters everything(String tag, Fixture fixture, String... serverArgs) {
    List<String> args = new ArrayList<>(List.of("--prefix", cache().toString(), "--no-install"));
    args.add(BIN);
    args.addAll(List.of(serverArgs));
    return params(tag, fixture, args);
  }

  /**
   * npx asked for a program the cache does not have: npm fails before any server runs. Offline, so
   * that npm fails at once on every machine: online, {@code --no-install} still asks the registry,
   * which takes npm a minute of retries where the registry is unreachable or its certificate is not
   * trusted.
   */
  static ServerParameters missingProgram(String tag) {
    return params(
        tag,
        Fixture.NONE,
        List.of("--prefix", cache().toString(), "--offline", "--no-install", "no-such-mcp-server"));
  }

  private static ServerParameters params(String tag, Fixture fixture, List<String> args) {
    ServerParameters.Builder builder = ServerParameters.builder("npx").args(args);
    builder.addEnvVar(TAG, tag);
    if (fixture.file != null) {
      builder.addEnvVar("NODE_OPTIONS", "--require " + fixturePath(fixture));
    }
    return builder.build();
  }

  static Path fixturePath(Fixture fixture) {
    try {
      return Path.of(McpServers.class.getResource("/mcp-fixtures/" + fixture.file).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
