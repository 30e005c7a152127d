package dev.lifecycle.testkit;

/** What a leak check does with the leaks it finds. */
public enum LeakAction {
  /**
   * The test (or class) fails with the leak report, and every reported process is killed (each kill
   * is listed in the report) so the next test starts clean.
   */
  FAIL,
  /**
   * The report is logged and published as a report entry; the test passes and nothing is killed.
   */
  WARN,
  /**
   * Annotation default: take {@value LeakOptions#ACTION_PARAMETER} from the configuration, else
   * {@link LeakOptions#DEFAULT_ACTION}.
   */
  INFERRED
}
