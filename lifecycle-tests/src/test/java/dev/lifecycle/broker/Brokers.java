package dev.lifecycle.broker;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Helpers shared by the broker tests and their child JVMs. */
final class Brokers {
  private Brokers() {}

  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The command of a {@link TestBrokerMain} for {@code store}/{@code name}. */
  static ProcessBuilder command(Path store, String name, List<String> jvmOptions) {
    List<String> command = new ArrayList<>();
    command.add(java());
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(TestBrokerMain.class.getName());
    command.add(store.toString());
    command.add(name);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put(BrokerClient.DIRECTORY_VARIABLE, store.toString());
    return builder;
  }

  /** Every test reply comes within this bound, or the test fails instead of hanging. */
  static final Duration REPLY_BOUND = Duration.ofSeconds(15);

  /** Sends one request line and reads one reply line. */
  static String request(BrokerConnection connection, String line) throws IOException {
    return connection.call(line, REPLY_BOUND);
  }

  static void send(BrokerConnection connection, String line) throws IOException {
    connection.send(line, REPLY_BOUND);
  }
}
