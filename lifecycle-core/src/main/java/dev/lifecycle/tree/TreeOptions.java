package dev.lifecycle.tree;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link ProcessTree} is ended.
 *
 * @param grace how long the tree may take to exit after SIGTERM before SIGKILL ({@link
 *     ProcessTree#close()} and {@link ProcessTree#terminate()} use it; zero means SIGKILL right
 *     after SIGTERM)
 * @param escapeeGrace the grace of an escapee found only after the tree's group was verified empty:
 *     {@code min(grace, escapeeGrace)}. Shorter than the tree's grace because the escapee's tree is
 *     already gone and every caller is waiting on the sweep.
 * @param verifyTimeout how long to wait after SIGKILL for the processes to be gone before they are
 *     reported as survivors (uninterruptible sleep) instead of waiting forever
 */
public record TreeOptions(Duration grace, Duration escapeeGrace, Duration verifyTimeout) {

  /** Default grace: enough for a JVM or a Node program to run its shutdown hooks. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);

  /** Default escapee grace: escapees are found late; the sweep should not double the wait. */
  public static final Duration DEFAULT_ESCAPEE_GRACE = Duration.ofSeconds(1);

  /** Default verification bound: SIGKILL'd processes are gone within milliseconds unless in D. */
  public static final Duration DEFAULT_VERIFY_TIMEOUT = Duration.ofSeconds(5);

  /** Longer durations are clamped to this ("effectively never"), so no arithmetic overflows. */
  public static final Duration MAX = Duration.ofDays(365);

  public TreeOptions {
    grace = check(grace, "grace");
    escapeeGrace = check(escapeeGrace, "escapeeGrace");
    verifyTimeout = check(verifyTimeout, "verifyTimeout");
  }

  public static TreeOptions defaults() {
    return new TreeOptions(DEFAULT_GRACE, DEFAULT_ESCAPEE_GRACE, DEFAULT_VERIFY_TIMEOUT);
  }

  public TreeOptions withGrace(Duration value) {
    return new TreeOptions(value, escapeeGrace, verifyTimeout);
  }

  public TreeOptions withEscapeeGrace(Duration value) {
    return new TreeOptions(grace, value, verifyTimeout);
  }

  public TreeOptions withVerifyTimeout(Duration value) {
    return new TreeOptions(grace, escapeeGrace, value);
  }

  static Duration check(Duration value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative: " + value);
    }
    return value.compareTo(MAX) > 0 ? MAX : value;
  }
}
