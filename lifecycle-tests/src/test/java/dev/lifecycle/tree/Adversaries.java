package dev.lifecycle.tree;

import java.lang.ProcessBuilder.Redirect;

/**
 * The {@code sh -c} adversaries of the tree tests, in one place: the scriptable fixture child of
 * lifecycle-test-kit replaces them when it lands.
 */
final class Adversaries {
  private Adversaries() {}

  /** A leader and {@code n - 1} children, all ignoring SIGTERM (ignored dispositions inherit). */
  static ProcessBuilder trappingTree(int n) {
    return sh(
        "trap '' TERM; i=1; while [ $i -lt " + n + " ]; do sleep 300 & i=$((i+1)); done; wait");
  }

  /** A leader with {@code n} plain children that die on SIGTERM. */
  static ProcessBuilder politeTree(int n) {
    return sh("i=0; while [ $i -lt " + n + " ]; do sleep 300 & i=$((i+1)); done; wait");
  }

  /** A child that escapes into a session of its own, next to a plain one. */
  static ProcessBuilder setsidEscapee() {
    return sh("setsid sleep 300 & sleep 300 & wait");
  }

  /**
   * A leader that answers SIGTERM by escaping: it double-forks a setsid daemon that ignores
   * SIGTERM, then exits. The daemon exists only after the tree was signalled, and only its cookie
   * names it.
   */
  static ProcessBuilder escapesOnTerm() {
    return sh("trap 'trap \"\" TERM; ( setsid sleep 300 & ) ; exit 0' TERM; sleep 300 & wait");
  }

  /**
   * Like {@link #escapesOnTerm()}, but the TERM-trapping shell exits only once its descendant has
   * left the session (the descendant creates {@code escaped} after its setsid).
   */
  static ProcessBuilder escapesOnTermThenExits(java.nio.file.Path escaped) {
    ProcessBuilder b =
        sh(
            "trap 'trap \"\" TERM; ( setsid sh -c \": > \\\"$ESCAPED\\\"; exec sleep 300\" & );"
                + " while [ ! -e \"$ESCAPED\" ]; do sleep 0.01; done; exit 0' TERM;"
                + " sleep 300 & wait");
    b.environment().put("ESCAPED", escaped.toString());
    return b;
  }

  /** A daemon by double fork: its parent exits at once, so it is re-parented to init. */
  static ProcessBuilder doubleFork() {
    return sh("( sleep 300 & ) ; sleep 300 & wait");
  }

  /** A double-forked daemon that also left the session: only the cookie still names it. */
  static ProcessBuilder setsidDoubleFork() {
    return sh("( setsid sleep 300 & ) ; sleep 300 & wait");
  }

  /** A leader that exits at once, leaving {@code n} children running for {@code seconds}. */
  static ProcessBuilder leaderExitsFirst(int n, String seconds) {
    return sh(
        "i=0; while [ $i -lt " + n + " ]; do sleep " + seconds + " & i=$((i+1)); done; exit 0");
  }

  /** A leader that exits at once with status 0. */
  static ProcessBuilder exitsAtOnce() {
    return sh("exit 0");
  }

  static ProcessBuilder sh(String script) {
    return new ProcessBuilder("sh", "-c", script)
        .redirectInput(Redirect.from(new java.io.File("/dev/null")))
        .redirectOutput(Redirect.DISCARD)
        // Not INHERIT: an escapee that leaked would hold the test JVM's stderr pipe open and hang
        // the build until it exits (seen when the cookie sweep was broken on purpose).
        .redirectError(Redirect.DISCARD);
  }
}
