package dev.lifecycle.process;

/**
 * The signals the library sends. Numbers differ between Linux and macOS (STOP, CONT, USR1...), so
 * they are mapped by each {@link ProcessPlatform}, never hard-coded by callers. Immutable and
 * thread-safe (an enum).
 */
public enum Signal {
  /** SIGHUP: hang-up; many daemons reload their configuration on it. */
  HUP,
  /** SIGINT: interrupt, as Ctrl-C sends it. */
  INT,
  /** SIGQUIT: quit; a JVM prints a thread dump on it. */
  QUIT,
  /** SIGKILL: ends the process at once; cannot be caught, blocked or ignored. */
  KILL,
  /** SIGUSR1: for the program to define. */
  USR1,
  /** SIGUSR2: for the program to define. */
  USR2,
  /** SIGTERM: asks the process to exit; it may clean up first, or ignore it. */
  TERM,
  /** SIGCONT: resumes a stopped process (sent with SIGTERM so that a stopped one can act on it). */
  CONT,
  /** SIGSTOP: stops the process until SIGCONT; cannot be caught or ignored. */
  STOP
}
