package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Measures the CPU use of every member of a tree over a window from per-process CPU time ({@link
 * ProcessInfo#cpuTime()}), sampling the table so members that start or end mid-window count too.
 */
public final class CpuSampler {
  /** Shortest window: with 10 ms ticks, shorter windows turn one tick into a visible fraction. */
  public static final Duration MIN_WINDOW = Duration.ofMillis(200);

  /** Sampling period inside the window: sees short-lived members at a few ms of CPU per sample. */
  static final Duration SAMPLE_EVERY = Duration.ofMillis(100);

  /** Members observed for less than this are not judged: their fraction would be tick noise. */
  static final Duration MIN_OBSERVED = Duration.ofMillis(150);

  private CpuSampler() {}

  private record First(long nanos, Duration cpu) {}

  /** What one window saw: every member (short-lived ones too) and the time it took. */
  record Window(List<ProcessCpu> members, Duration elapsed) {
    Duration totalUsed() {
      Duration sum = Duration.ZERO;
      for (ProcessCpu c : members) {
        sum = sum.plus(c.used());
      }
      return sum;
    }

    /** CPU of all members together as a fraction of one core over the whole window. */
    double totalCoreFraction() {
      return elapsed.isZero() ? 0 : (double) totalUsed().toNanos() / elapsed.toNanos();
    }
  }

  /**
   * Samples {@code tree} over {@code window}; per member, heaviest first.
   *
   * @param tree which processes to sample, re-read during the window
   * @param window how long CPU time is measured
   * @param platform reads the members' CPU times
   * @return one entry per member observed long enough to give a meaningful fraction, heaviest first
   */
  public static List<ProcessCpu> sample(
      TreeSelector tree, Duration window, ProcessPlatform platform) {
    List<ProcessCpu> out = new ArrayList<>();
    for (ProcessCpu c : sampleWindow(tree, window, platform).members()) {
      if (c.observed().compareTo(MIN_OBSERVED) >= 0) {
        out.add(c);
      }
    }
    return out;
  }

  /** Samples {@code tree} over {@code window}: every member seen, heaviest first. */
  static Window sampleWindow(TreeSelector tree, Duration window, ProcessPlatform platform) {
    if (window.compareTo(MIN_WINDOW) < 0) {
      throw new IllegalArgumentException(
          "window " + window + " is shorter than " + MIN_WINDOW + ": CPU time has 10 ms ticks");
    }
    Map<String, First> first = new LinkedHashMap<>();
    Map<String, ProcessCpu> last = new LinkedHashMap<>();
    long begin = System.nanoTime();
    long end = begin + Polling.clampNanos(window);
    while (true) {
      ProcessTable table = platform.snapshot();
      long now = table.takenAtNanos();
      for (ProcessInfo p : tree.members(table, platform)) {
        String key = p.pid() + "/" + p.startTime();
        First f = first.computeIfAbsent(key, k -> new First(now, p.cpuTime()));
        if (!p.hasExited()) {
          last.put(
              key,
              new ProcessCpu(
                  p.identity(table.bootId()),
                  platform
                      .commandLine(p.pid())
                      .filter(l -> !l.isEmpty())
                      .map(l -> String.join(" ", l))
                      .orElse(p.command()),
                  p.cpuTime().minus(f.cpu()),
                  Duration.ofNanos(now - f.nanos())));
        }
      }
      long left = end - System.nanoTime();
      if (left <= 0) {
        break;
      }
      Polling.pauseNanos(Math.min(left, SAMPLE_EVERY.toNanos()));
    }
    List<ProcessCpu> out = new ArrayList<>(last.values());
    out.sort(Comparator.comparingDouble(ProcessCpu::coreFraction).reversed());
    return new Window(out, Duration.ofNanos(System.nanoTime() - begin));
  }
}
