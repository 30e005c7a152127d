package dev.lifecycle.worker;

import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes one worker's job records to its file, one write at a time. Thread-safe. */
final class JobWriter {
  // The worker's logger: its lines keep the name embedders configure their level by.
  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

  private final Path file;

  JobWriter(Path file) {
    this.file = file;
  }

  synchronized void write(JobRecord r) throws IOException {
    JobFile.write(file, r);
  }

  /** Writes {@code r}, logging a failure instead of throwing: bookkeeping never stops a kill. */
  boolean writeQuietly(JobRecord r) {
    try {
      write(r);
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.error("cannot record {} for job {} in {}", r.status(), r.jobId(), file, e);
      return false;
    }
  }
}
