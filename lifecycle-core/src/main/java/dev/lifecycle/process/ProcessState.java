package dev.lifecycle.process;

/**
 * The scheduler state of a process, as the kernel reports it. Immutable and thread-safe (an enum).
 */
public enum ProcessState {
  /** Running or runnable ({@code R}). */
  RUNNING,
  /** In an interruptible sleep, waiting for an event ({@code S}). */
  SLEEPING,
  /** In an uninterruptible sleep, usually I/O ({@code D}); even SIGKILL waits until it ends. */
  DISK_SLEEP,
  /** Stopped by a signal such as SIGSTOP ({@code T}); SIGCONT resumes it. */
  STOPPED,
  /** Stopped by a tracer such as a debugger ({@code t}). */
  TRACED,
  /** An idle kernel thread ({@code I}). */
  IDLE,
  /** Exited, awaiting reaping by its parent: counts as gone for every liveness decision. */
  ZOMBIE,
  /** Dead and being removed ({@code X}); never seen for long. */
  DEAD,
  /** A state code this library does not know. */
  UNKNOWN;

  /**
   * Whether the process has exited (zombie or dead): it will never run another instruction.
   *
   * @return {@code true} for {@link #ZOMBIE} and {@link #DEAD}
   */
  public boolean hasExited() {
    return this == ZOMBIE || this == DEAD;
  }

  /**
   * Maps the one-letter state code of {@code /proc/<pid>/stat} and {@code ps}.
   *
   * @param code the state letter, e.g. {@code R}, {@code S}, {@code Z}
   * @return the state; {@link #UNKNOWN} for a letter not listed here
   */
  public static ProcessState fromCode(char code) {
    return switch (code) {
      case 'R' -> RUNNING;
      case 'S' -> SLEEPING;
      case 'D' -> DISK_SLEEP;
      case 'T' -> STOPPED;
      case 't' -> TRACED;
      case 'I' -> IDLE;
      case 'Z' -> ZOMBIE;
      case 'X', 'x' -> DEAD;
      default -> UNKNOWN;
    };
  }
}
