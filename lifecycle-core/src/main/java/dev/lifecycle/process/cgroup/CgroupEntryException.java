package dev.lifecycle.process.cgroup;

import java.io.IOException;

/**
 * A child could not be moved into its cgroup right after it was spawned; the child was ended and
 * reaped before this was thrown, so nothing runs uncontained. Like any exception, safe to read from
 * any thread once thrown.
 */
public final class CgroupEntryException extends IOException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message which child and which cgroup
   * @param cause the failed write to {@code cgroup.procs}
   */
  public CgroupEntryException(String message, IOException cause) {
    super(message, cause);
  }
}
