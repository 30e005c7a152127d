package dev.lifecycle.broker;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
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

  /** Sends one request line and reads one reply line. */
  static String request(SocketChannel channel, String line) throws IOException {
    send(channel, line);
    ByteArrayOutputStream reply = new ByteArrayOutputStream();
    ByteBuffer one = ByteBuffer.allocate(1);
    while (channel.read(one) > 0) {
      byte b = one.get(0);
      one.clear();
      if (b == '\n') {
        return reply.toString(UTF_8);
      }
      reply.write(b);
    }
    throw new IOException("connection closed before a reply; got: " + reply.toString(UTF_8));
  }

  static void send(SocketChannel channel, String line) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(UTF_8));
    while (bytes.hasRemaining()) {
      channel.write(bytes);
    }
  }
}
