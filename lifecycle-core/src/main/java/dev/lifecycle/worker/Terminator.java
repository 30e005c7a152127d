package dev.lifecycle.worker;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.tree.SelfTermination;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Ends this JVM's tree and the JVM once a worker expired or breached; replaced in tests. */
@FunctionalInterface
interface Terminator {
  // The worker's logger: its lines keep the name embedders configure their level by.
  Logger LOG = LoggerFactory.getLogger(Worker.class);

  void terminate(Runnable beforeKill);

  /** Records {@code ended} first, then ends the tree; a failed write is retried before the KILL. */
  default void endTree(JobRecord ended, JobWriter writer) {
    LOG.warn("job {} {}: ending its process tree", ended.jobId(), ended.reason());
    boolean recorded = writer.writeQuietly(ended);
    terminate(recorded ? () -> {} : () -> writer.writeQuietly(ended));
  }

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
