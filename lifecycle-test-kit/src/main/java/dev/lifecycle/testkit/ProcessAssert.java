package dev.lifecycle.testkit;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessPlatform;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.AbstractAssert;

/** Assertions on one process: a {@link Process}, a {@link ProcessHandle} or a bare pid. */
public final class ProcessAssert extends AbstractAssert<ProcessAssert, Long> {
  private final Process process;
  private final ProcessPlatform platform;

  ProcessAssert(long pid, Process process, ProcessPlatform platform) {
    super(pid, ProcessAssert.class);
    this.process = process;
    this.platform = platform;
  }

  /**
   * Waits (polling, bounded) for the process to exit. A zombie counts as exited. For a {@link
   * Process} the exit is observed through {@link Process#waitFor(long, TimeUnit)}.
   */
  public ExitAssert exitsWithin(Duration within) {
    isNotNull();
    long pid = actual;
    boolean exited;
    if (process != null) {
      try {
        exited = process.waitFor(Polling.clampNanos(within), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for pid " + pid, e);
      }
    } else {
      exited = Polling.until(within, () -> platform.probe(pid) == Liveness.GONE);
    }
    if (!exited) {
      failWithMessage(
          "expected %s to exit within %s, but it is still running",
          Describe.pid(platform, pid), within);
    }
    OptionalInt code = process == null ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    return new ExitAssert(pid, code, platform);
  }

  /** Asserts the process is running now (not gone, not a zombie). */
  public ProcessAssert isAlive() {
    isNotNull();
    if (platform.probe(actual) == Liveness.GONE) {
      failWithMessage("expected pid %d to be running, but it is gone or a zombie", actual);
    }
    return this;
  }

  /** What is known about a process that exited. */
  public static final class ExitAssert extends AbstractAssert<ExitAssert, Long> {
    private final OptionalInt code;

    ExitAssert(long pid, OptionalInt code, ProcessPlatform platform) {
      super(pid, ExitAssert.class);
      this.code = code;
    }

    /** The exit code, when the process was a {@link Process} of this JVM. */
    public OptionalInt exitCode() {
      return code;
    }

    /**
     * Asserts the exit code (128 + n for death by signal n, as {@link Process#exitValue()}). Only a
     * {@link Process} has one: for a handle or a pid this fails and says why.
     */
    public ExitAssert withExitCode(int expected) {
      if (code.isEmpty()) {
        failWithMessage(
            "pid %d exited, but its exit code is unknown: only a Process started by this JVM"
                + " has one (use assertThat(Process))",
            actual);
      }
      if (code.getAsInt() != expected) {
        failWithMessage(
            "expected pid %d to exit with code %d, but it exited with %d%s",
            actual, expected, code.getAsInt(), signalHint(code.getAsInt()));
      }
      return this;
    }

    private static String signalHint(int value) {
      return value > 128 && value < 160 ? " (killed by signal " + (value - 128) + ")" : "";
    }
  }
}
