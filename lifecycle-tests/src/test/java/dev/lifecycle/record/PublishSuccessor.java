package dev.lifecycle.record;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessPlatform;
import java.nio.file.Path;
import java.util.Map;

/** Child JVM of {@link CrossProcessLockTest}: publishes a successor record and prints its token. */
public final class PublishSuccessor {
  private PublishSuccessor() {}

  public static void main(String[] args) throws Exception {
    RecordStore store = RecordStore.open(Path.of(args[0]), ProcessPlatform.get());
    SessionRecord successor =
        SessionRecord.newGeneration(ProcessPlatform.get(), Endpoint.tcp("127.0.0.1", 2), Map.of());
    System.out.println("token " + successor.token());
    System.out.flush();
    store.publish(args[1], successor);
    System.out.println("published");
  }
}
