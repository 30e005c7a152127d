package dev.lifecycle.process;

/** The scheduler state of a process, as the kernel reports it. */
public enum ProcessState {
  RUNNING,
  SLEEPING,
  DISK_SLEEP,
  STOPPED,
  TRACED,
  IDLE,
  /** Exited, awaiting reaping by its parent: counts as gone for every liveness decision. */
  ZOMBIE,
  DEAD,
  UNKNOWN;

  /** Whether the process has exited (zombie or dead): it will never run another instruction. */
  public boolean hasExited() {
    return this == ZOMBIE || this == DEAD;
  }

  /** Maps the one-letter state code of {@code /proc/<pid>/stat} and {@code ps}. */
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
