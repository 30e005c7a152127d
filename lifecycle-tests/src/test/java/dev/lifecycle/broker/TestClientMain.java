package dev.lifecycle.broker;

import dev.lifecycle.record.RecordStore;
import dev.lifecycle.time.Limit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A client JVM of the cold-start test: waits for a gate file, then ensures the broker, asks it for
 * its pid and prints {@code SERVED <pid> <started>}.
 *
 * <p>Arguments: {@code <storeDir> <name> <gateFile> [broker JVM options...]}.
 */
public final class TestClientMain {
  private TestClientMain() {}

  public static void main(String[] args) throws Exception {
    Path store = Path.of(args[0]);
    Path gate = Path.of(args[2]);
    List<String> brokerOptions = List.of(args).subList(3, args.length);
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!Files.exists(gate)) { // released all at once by the test
      if (System.nanoTime() > deadline) {
        System.exit(2);
      }
      Thread.sleep(2); // a fixed, tight pace: every client must leave the gate at once
    }
    BrokerClient client =
        BrokerClient.builder()
            .store(RecordStore.open(store))
            .name(args[1])
            .command(() -> Brokers.command(store, args[1], brokerOptions))
            .readyTimeout(Limit.ofSeconds(30))
            .startLockTimeout(Limit.ofSeconds(60))
            .build();
    BrokerSession session = client.ensure();
    try (BrokerConnection channel = client.connection()) {
      System.out.println("SERVED " + Brokers.request(channel, "pid") + " " + session.started());
    }
    System.exit(0);
  }
}
