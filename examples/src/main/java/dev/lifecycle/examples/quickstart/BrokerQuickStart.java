package dev.lifecycle.examples.quickstart;

import dev.lifecycle.broker.BrokerClient;
import dev.lifecycle.broker.BrokerRuntime;
import dev.lifecycle.record.RecordStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A per-workspace broker: the first call starts it, later calls share it, idle it leaves. */
public final class BrokerQuickStart {
  public static void main(String[] args) throws Exception {
    if (args[0].equals("--broker")) { // started by the client below, which passes store and name
      BrokerRuntime broker = BrokerRuntime.builder().fromClientEnvironment()
          .handler(request -> CompletableFuture.completedFuture("pong " + request.line())).build();
      broker.start(); // publishes its record; never over a live broker
      System.exit(broker.awaitStopped().isClean() ? 0 : 1); // after 10 idle minutes (default)
    }
    String java = ProcessHandle.current().info().command().orElseThrow();
    BrokerClient client = BrokerClient.builder()
        .store(RecordStore.open(Path.of(args[0]))).name("workspace") // dir created owner-only
        .command(() -> new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
            BrokerQuickStart.class.getName(), "--broker"))
        .build();
    try (var connection = client.connection()) { // starts the broker if none is serving
      System.out.println(connection.call("ping", Duration.ofSeconds(10)));
    }
  }
}
