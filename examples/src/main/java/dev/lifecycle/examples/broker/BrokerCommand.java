package dev.lifecycle.examples.broker;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of an {@link ExampleBroker} JVM, as clients spawn it. */
public final class BrokerCommand {
  /** System properties with these prefixes are passed on to the broker JVM. */
  private static final List<String> FORWARDED = List.of("lifecycle.", "example.");

  private static final String SELECTOR_PROVIDER = "java.nio.channels.spi.SelectorProvider";

  private BrokerCommand() {}

  /** The java executable of this JVM. */
  public static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * JVM options for a short-lived helper JVM: quick start (C1 only, serial GC, small heap), native
   * access for the JNA platform, quiet logging (warnings only, on stderr).
   */
  public static List<String> jvmOptions() {
    List<String> options = new ArrayList<>();
    options.add("-XX:TieredStopAtLevel=1");
    options.add("-XX:+UseSerialGC");
    options.add("-Xss512k");
    options.add("-Xmx64m");
    options.add("--enable-native-access=ALL-UNNAMED");
    options.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    String selector = System.getProperty(SELECTOR_PROVIDER);
    if (selector != null) { // the launcher's (see there): the broker's first channel needs it too
      options.add("-D" + SELECTOR_PROVIDER + "=" + selector);
    }
    for (String key : System.getProperties().stringPropertyNames()) {
      if (FORWARDED.stream().anyMatch(key::startsWith)) {
        options.add("-D" + key + "=" + System.getProperty(key));
      }
    }
    return options;
  }

  /** {@code java <options> -cp <this classpath> <main> args...}. */
  public static ProcessBuilder javaCommand(Class<?> main, List<String> args) {
    return javaCommand(main, List.of(), args);
  }

  /** Same, with {@code extraOptions} (e.g. {@code -Dlifecycle.worker.ceiling=1s}) after ours. */
  public static ProcessBuilder javaCommand(
      Class<?> main, List<String> extraOptions, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(java());
    command.addAll(jvmOptions());
    command.addAll(extraOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(args);
    return new ProcessBuilder(command);
  }

  /**
   * The broker's command. Its stderr goes to {@code broker.log} in the record store directory (the
   * client that spawns it does not stay to read a pipe).
   */
  public static ProcessBuilder broker(Path storeDirectory) {
    return broker(storeDirectory, List.of());
  }

  /** Same, with extra JVM options (e.g. {@code -Dlifecycle.broker.idleTimeout=2s}). */
  public static ProcessBuilder broker(Path storeDirectory, List<String> extraOptions) {
    List<String> options = new ArrayList<>(ClassDataArchive.options("broker"));
    // The runtime logs each shutdown pass ("broker ... stopped: ShutdownReport[...]") at INFO.
    options.add("-Dorg.slf4j.simpleLogger.log.dev.lifecycle.broker.BrokerRuntime=info");
    options.addAll(extraOptions);
    return javaCommand(ExampleBroker.class, options, List.of())
        .redirectError(
            ProcessBuilder.Redirect.appendTo(storeDirectory.resolve("broker.log").toFile()));
  }
}
