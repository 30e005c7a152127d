package dev.lifecycle.testkit;

/** What a leak does to the test. Leaked processes are killed either way. */
public enum LeakAction {
  /** The test (or class) fails with the leak report. */
  FAIL,
  /** The report is logged and published as a report entry; the test passes. */
  WARN
}
