package dev.lifecycle.process;

/**
 * A signal was refused before any system call because sending it could hit a process that is not
 * ours: pid or process group {@code <= 1}, or the process group of the calling JVM. Like any
 * exception, safe to read from any thread once thrown.
 */
public final class UnsafeSignalException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was refused and why
   */
  public UnsafeSignalException(String message) {
    super(message);
  }
}
