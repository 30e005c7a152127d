package dev.lifecycle.testkit;

import java.time.Duration;
import java.util.OptionalInt;

/**
 * One process of a {@link ConcurrentLaunch}.
 *
 * @param index its position, 0-based
 * @param pid its pid, {@code -1} when it could not be started
 * @param exitCode its exit code (128 + n when killed by signal n); empty when it did not exit in
 *     time or did not start
 * @param stdout what it wrote on stdout (only the first line in the broken-pipe variant)
 * @param stderr what it wrote on stderr, or the start failure
 * @param startLatency from the gate opening to the spawn call returning
 * @param elapsed from the gate opening to its exit (or to the timeout)
 * @param killedByHarness whether the harness SIGKILLed it mid-run (caller-killed variant)
 */
public record LaunchResult(
    int index,
    long pid,
    OptionalInt exitCode,
    String stdout,
    String stderr,
    Duration startLatency,
    Duration elapsed,
    boolean killedByHarness) {

  /**
   * Whether the process exited before the launch's timeout.
   *
   * @return {@code true} if its exit code is known
   */
  public boolean exited() {
    return exitCode.isPresent();
  }

  @Override
  public String toString() {
    return "#"
        + index
        + " pid "
        + pid
        + (exitCode.isPresent() ? " exit " + exitCode.getAsInt() : " DID NOT EXIT")
        + (killedByHarness ? " (killed by harness)" : "")
        + ", started in "
        + startLatency.toMillis()
        + " ms, ran "
        + elapsed.toMillis()
        + " ms"
        + (stderr.isBlank() ? "" : ", stderr: " + stderr.strip());
  }
}
