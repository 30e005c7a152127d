package dev.lifecycle.testkit;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessPlatform;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on one process: a {@link Process}, a {@link ProcessHandle} or a bare pid (the actual
 * value is the pid). Every wait polls against a deadline. Not final and with public constructors,
 * so AssertJ soft assertions can proxy it ({@link LifecycleSoftAssertions}). Not thread-safe.
 */
public class ProcessAssert extends AbstractAssert<ProcessAssert, Long> {
  private final Optional<Process> process;
  private final ProcessPlatform platform;
  private OptionalInt exitCode = OptionalInt.empty();
  private boolean exited;

  /**
   * Assertions on a {@link Process} of this JVM (its exit code can be asserted).
   *
   * @param process the process
   */
  public ProcessAssert(Process process) {
    this(process.pid(), Optional.of(process));
  }

  /**
   * Assertions on the process {@code handle} names.
   *
   * @param handle the process; its exit code cannot be asserted
   */
  public ProcessAssert(ProcessHandle handle) {
    this(handle.pid(), Optional.empty());
  }

  /**
   * Assertions on the process at {@code pid}.
   *
   * @param pid the process id; its exit code cannot be asserted
   */
  public ProcessAssert(Long pid) {
    this(pid, Optional.empty());
  }

  private ProcessAssert(long pid, Optional<Process> process) {
    super(pid, ProcessAssert.class);
    this.process = process;
    this.platform = ProcessPlatform.get();
  }

  /**
   * Waits (polling, bounded) for the process to exit. A zombie counts as exited. For a {@link
   * Process} the exit is observed through {@link Process#waitFor(long, TimeUnit)}.
   *
   * @param within how long the process may take to exit
   * @return this assertion
   * @throws AssertionError if it still runs after {@code within}, or the thread was interrupted
   */
  public ProcessAssert exitsWithin(Duration within) {
    isNotNull();
    long pid = actual;
    boolean done;
    if (process.isPresent()) {
      try {
        done = process.get().waitFor(Polling.clampNanos(within), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for pid " + pid, e);
      }
    } else {
      done = Polling.until(within, () -> platform.probe(pid) == Liveness.GONE);
    }
    if (!done) {
      failWithMessage(
          "expected %s to exit within %s, but it is still running",
          Describe.pid(platform, pid), within);
    }
    exited = true;
    exitCode = process.map(p -> OptionalInt.of(p.exitValue())).orElse(OptionalInt.empty());
    return this;
  }

  /**
   * The exit code seen by {@link #exitsWithin}, when the process was a {@link Process}.
   *
   * @return the exit code, or empty before {@link #exitsWithin} or for a handle or a pid
   */
  public OptionalInt exitCode() {
    return exitCode;
  }

  /**
   * Asserts the exit code seen by {@link #exitsWithin} (128 + n for death by signal n, as {@link
   * Process#exitValue()}). Only a {@link Process} has one: for a handle or a pid this fails and
   * says why.
   *
   * @param expected the exit code the process must have had
   * @return this assertion
   * @throws AssertionError if {@link #exitsWithin} was not called, the code is unknown or differs
   */
  public ProcessAssert withExitCode(int expected) {
    isNotNull();
    if (!exited) {
      failWithMessage("pid %d: call exitsWithin(..) before withExitCode(..)", actual);
    }
    if (exitCode.isEmpty()) {
      failWithMessage(
          "pid %d exited, but its exit code is unknown: only a Process started by this JVM"
              + " has one (use assertThat(Process))",
          actual);
    }
    if (exitCode.getAsInt() != expected) {
      failWithMessage(
          "expected pid %d to exit with code %d, but it exited with %d%s",
          actual, expected, exitCode.getAsInt(), signalHint(exitCode.getAsInt()));
    }
    return this;
  }

  /**
   * Asserts the process is running now (not gone, not a zombie).
   *
   * @return this assertion
   * @throws AssertionError if the process is gone or a zombie
   */
  public ProcessAssert isAlive() {
    isNotNull();
    if (platform.probe(actual) == Liveness.GONE) {
      failWithMessage("expected pid %d to be running, but it is gone or a zombie", actual);
    }
    return this;
  }

  private static String signalHint(int value) {
    return value > 128 && value < 160 ? " (killed by signal " + (value - 128) + ")" : "";
  }
}
