package dev.lifecycle.testing;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs of the machine (a tool, root, {@code /proc}, a writable cgroup). Unmet, the
 * test skips and says why; under {@code CI=true} it fails instead, since CI must run every check.
 */
public final class Requirement {
  private Requirement() {}

  /**
   * Returns when {@code met}; else skips the calling test, or fails it under {@code CI=true}.
   *
   * @param met whether the machine has what the test needs
   * @param why what is missing, for the skip or failure message
   */
  public static void require(boolean met, String why) {
    if (!met) {
      unmet(why);
    }
  }

  /**
   * Skips the calling test with {@code why}, or fails it under {@code CI=true}; never returns.
   *
   * @param why what is missing
   */
  public static void unmet(String why) {
    if ("true".equals(System.getenv("CI"))) {
      fail(why + " (CI=true: this check must run)");
    }
    Assumptions.abort(why);
  }
}
