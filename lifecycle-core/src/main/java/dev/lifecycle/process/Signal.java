package dev.lifecycle.process;

/**
 * The signals the library sends. Numbers differ between Linux and macOS (STOP, CONT, USR1...), so
 * they are mapped by each {@link ProcessPlatform}, never hard-coded by callers.
 */
public enum Signal {
  HUP,
  INT,
  QUIT,
  KILL,
  USR1,
  USR2,
  TERM,
  CONT,
  STOP
}
