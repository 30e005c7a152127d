package dev.lifecycle.inventory;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** A member's figures from two looks: command line, CPU share over the window, RSS, and age. */
final class Measure {
  private final ProcessPlatform platform;
  private final String boot;
  private final double uptime;
  private final long elapsedNanos;

  /**
   * @param uptime seconds since boot at the first look, negative when unknown
   * @param elapsedNanos time between the two looks, 0 when there was one look only
   */
  Measure(ProcessPlatform platform, String boot, double uptime, long elapsedNanos) {
    this.platform = platform;
    this.boot = boot;
    this.uptime = uptime;
    this.elapsedNanos = elapsedNanos;
  }

  /** {@code row} at the first look, {@code later} at the second (null when none or gone). */
  Member member(ProcessInfo row, ProcessInfo later) {
    double share = -1;
    if (later != null && elapsedNanos > 0 && later.startTime() == row.startTime()) {
      long cpu = later.cpuTime().toNanos() - row.cpuTime().toNanos();
      share = Math.max(0, (double) cpu / elapsedNanos);
    }
    String command =
        platform
            .commandLine(row.pid())
            .filter(argv -> !argv.isEmpty())
            .map(argv -> String.join(" ", argv))
            .orElse("[" + row.command() + "]");
    long rss =
        later != null && later.residentBytes() >= 0 ? later.residentBytes() : row.residentBytes();
    return new Member(row.identity(boot), row.ppid(), row.state(), command, share, rss);
  }

  /** How long a process that started at {@code startTicks} (clock ticks after boot) has run. */
  Duration age(long startTicks) {
    return uptime < 0
        ? Duration.ZERO
        : Duration.ofMillis(Math.max(0, (long) (uptime * 1000) - startTicks * 10));
  }

  /** Seconds since boot, or -1 when unreadable. */
  static double uptimeSeconds() {
    try {
      String text = Files.readString(Path.of("/proc/uptime"));
      return Double.parseDouble(text.substring(0, text.indexOf(' ')));
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
