package dev.lifecycle.mcp;

import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.tether.Tether;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** What a transport was built with, every setting resolved. Immutable; thread-safe. */
record Settings(
    ServerParameters params,
    McpJsonMapper mapper,
    ShutdownLadder ladder,
    ServerLimits limits,
    Ceilings ceilings,
    Optional<Path> directory,
    Supplier<Tether> tether,
    ProcessPlatform platform,
    int maxLineBytes) {

  /** Each setting as set on {@code builder}, else configured, else its default. */
  static Settings of(SupervisedStdioClientTransport.Builder builder) {
    return new Settings(
        builder.params,
        builder.mapper != null ? builder.mapper : McpJsonDefaults.getMapper(),
        ShutdownLadder.resolve(builder.inCode, System::getProperty, System::getenv),
        ServerLimits.resolve(builder.inCode, System::getProperty, System::getenv),
        builder.ceilings.isPresent()
            ? builder.ceilings.get()
            : Ceilings.fromConfig(
                SupervisedStdioClientTransport.CEILINGS_PROPERTY_PREFIX,
                SupervisedStdioClientTransport.CEILINGS_ENV_PREFIX,
                SupervisedStdioClientTransport.DEFAULT_CEILINGS),
        builder.directory,
        builder.tether,
        builder.platform != null ? builder.platform : ProcessPlatform.get(),
        builder.maxLineBytes);
  }

  /** The server's command line: the command, then its arguments. */
  List<String> command() {
    List<String> command = new ArrayList<>();
    command.add(params.getCommand());
    command.addAll(params.getArgs());
    return command;
  }

  /** The process to start: the command line, this JVM's environment plus the server's. */
  ProcessBuilder processBuilder() {
    ProcessBuilder builder = new ProcessBuilder(command());
    builder.environment().putAll(params.getEnv());
    directory.ifPresent(d -> builder.directory(d.toFile()));
    return builder;
  }
}
