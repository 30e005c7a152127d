package dev.lifecycle.worker;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.tree.SelfTermination;
import java.time.Duration;

/** Ends this JVM's tree and the JVM once a worker expired or breached; replaced in tests. */
@FunctionalInterface
interface Terminator {
  void terminate(Runnable beforeKill);

  /** {@link SelfTermination} of this JVM's tree, then exit with {@code code}. */
  static Terminator selfTermination(ProcessPlatform p, Duration grace, int code) {
    return beforeKill ->
        SelfTermination.builder()
            .platform(p)
            .grace(grace)
            .exitCode(code)
            .beforeKill(beforeKill, Duration.ofSeconds(2))
            .build()
            .terminateAndExit();
  }
}
