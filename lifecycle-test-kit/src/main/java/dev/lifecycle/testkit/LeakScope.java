package dev.lifecycle.testkit;

/** When the leak check runs. */
public enum LeakScope {
  /**
   * Baseline before each test method, check after it: leaks are attributed to the method. Unsafe
   * when methods of one JVM run concurrently (JUnit parallel execution): a leak may then be blamed
   * on whichever test checks first. Use {@link #CLASS} there.
   */
  METHOD,
  /**
   * Baseline before the first test of the class, check after the last: safe with parallel tests.
   */
  CLASS
}
