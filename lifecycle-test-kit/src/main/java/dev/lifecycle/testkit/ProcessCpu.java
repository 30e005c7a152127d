package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessIdentity;
import java.time.Duration;

/**
 * CPU use of one process over an observed interval.
 *
 * @param identity the process
 * @param command its command line (or short name)
 * @param used CPU time consumed during the interval (10 ms resolution on Linux)
 * @param observed how long it was observed
 */
public record ProcessCpu(
    ProcessIdentity identity, String command, Duration used, Duration observed) {

  /**
   * Used CPU as a fraction of one core (1.0 = one core busy the whole time).
   *
   * @return {@code used / observed}; {@code 0} when nothing was observed
   */
  public double coreFraction() {
    return observed.isZero() ? 0 : (double) used.toNanos() / observed.toNanos();
  }

  @Override
  public String toString() {
    return String.format(
        "pid %d used %d ms CPU in %d ms (%.0f%% of a core): %s",
        identity.pid(), used.toMillis(), observed.toMillis(), coreFraction() * 100, command);
  }
}
