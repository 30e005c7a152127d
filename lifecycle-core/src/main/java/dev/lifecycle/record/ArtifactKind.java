package dev.lifecycle.record;

/**
 * The kinds of files an owner creates and that go away with it. Reclaim removes them in this order,
 * so a directory holding the others is emptied before it is removed. Immutable and thread-safe (an
 * enum).
 */
public enum ArtifactKind {
  /** A Unix domain socket file; removed only if it is a socket. */
  SOCKET("socket"),
  /** A pid file; removed only if it is a regular file. */
  PID_FILE("pid-file"),
  /** A log file; removed only if it is a regular file. */
  LOG_FILE("log-file"),
  /** A directory; removed only if it is a directory and empty. */
  DIRECTORY("directory");

  private final String key;

  ArtifactKind(String key) {
    this.key = key;
  }

  /**
   * The name used in the record file, e.g. {@code pid-file}.
   *
   * @return the key as the record file spells it
   */
  public String key() {
    return key;
  }
}
