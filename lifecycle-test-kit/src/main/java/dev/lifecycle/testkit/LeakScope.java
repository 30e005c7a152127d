package dev.lifecycle.testkit;

/** Which stretches of a test class are leak-checked. */
public enum LeakScope {
  /**
   * Each test method (baseline before it, check after it: a leak is blamed on the method), and the
   * class as a whole (baseline before {@code @BeforeAll}, check after {@code @AfterAll}): what the
   * class's own fixtures leave is reported against the class. A process reported once is never
   * reported again by the class check.
   */
  METHOD,
  /**
   * The class as a whole only: one baseline before the first test, one check after the last. Use it
   * when methods of one class run concurrently (JUnit parallel execution).
   */
  CLASS,
  /**
   * Annotation default: take {@value LeakOptions#SCOPE_PARAMETER} from the configuration, else
   * {@link LeakOptions#DEFAULT_SCOPE}.
   */
  INFERRED
}
