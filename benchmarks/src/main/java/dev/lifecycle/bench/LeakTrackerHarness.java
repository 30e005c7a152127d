package dev.lifecycle.bench;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.testkit.Attribution;
import dev.lifecycle.testkit.LeakOptions;
import dev.lifecycle.testkit.LeakReport;
import dev.lifecycle.testkit.LeakTracker;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.ProcessBuilder.Redirect;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * CPU cost of the test kit's leak tracking: a child JVM runs R rounds of a "test" that sleeps for
 * the window, once untracked and once under a {@link LeakTracker} (baseline, background sampling,
 * leak check with linger), and measures its own process CPU time ({@code
 * OperatingSystemMXBean.getProcessCpuTime}, 10 ms ticks here: means over the rounds) for each. The
 * difference is what tracking costs. With {@code unrelated > 0} this process first starts that many
 * {@code sleep 600} processes in a session of their own (siblings of the child JVM, never its
 * descendants), so the tracker has a realistic process table to look at; they are killed by group
 * at the end.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.lifecycle.bench.LeakTrackerHarness \
 *     0,1000 2 5</pre>
 *
 * arguments: unrelated process counts, window seconds, rounds, attribution tiers ({@code
 * auto,evidence}).
 */
public final class LeakTrackerHarness {
  private LeakTrackerHarness() {}

  public static void main(String[] args) throws Exception {
    String[] counts = HarnessArgs.listArg(args, 0, "0,1000");
    int window = HarnessArgs.intArg(args, 1, 2);
    int rounds = HarnessArgs.intArg(args, 2, 5);
    String[] tiers = HarnessArgs.listArg(args, 3, "auto,evidence");
    ProcessPlatform posix = ProcessPlatform.get();
    for (String count : counts) {
      int n = Integer.parseInt(count.trim());
      SupervisedProcess sleepers = n == 0 ? null : startSleepers(posix, n);
      try {
        for (String tier : tiers) {
          runChild(window, rounds, tier, n);
        }
      } finally {
        if (sleepers != null) {
          posix.signalGroup(sleepers.processGroupId(), Signal.KILL);
          sleepers.waitFor();
        }
      }
    }
  }

  private static void runChild(int window, int rounds, String tier, int n) throws Exception {
    {
      {
        ProcessBuilder builder =
            new ProcessBuilder(
                HarnessJvm.java(),
                "-cp",
                HarnessJvm.jar(),
                TrackedTest.class.getName(),
                Integer.toString(window),
                Integer.toString(rounds),
                tier);
        builder.redirectError(Redirect.INHERIT);
        Process jvm = builder.start();
        try (BufferedReader out =
            new BufferedReader(
                new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = out.readLine()) != null) {
            System.out.println("[unrelated=" + n + ", attribution " + tier + "] " + line);
          }
        }
        if (!jvm.waitFor(120, TimeUnit.SECONDS)) {
          jvm.destroyForcibly();
          throw new IllegalStateException("tracked-test JVM hung");
        }
      }
    }
  }

  /** {@code n} sleepers in one new session and group; returns once all of them run. */
  private static SupervisedProcess startSleepers(ProcessPlatform posix, int n) throws Exception {
    ProcessBuilder b =
        new ProcessBuilder(
            "/bin/sh",
            "-c",
            "i=0; while [ $i -lt " + n + " ]; do sleep 600 & i=$((i+1)); done; echo up; wait");
    SupervisedProcess p = posix.spawn(b, SpawnOptions.defaults());
    BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    if (!"up".equals(r.readLine())) {
      throw new IllegalStateException("sleepers did not start");
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (posix.snapshot().group(p.processGroupId()).size() < n + 1) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("sleepers did not all start");
      }
      Thread.sleep(50);
    }
    return p;
  }

  /** The child JVM: idle rounds and tracked rounds alternately, medians printed. */
  public static final class TrackedTest {
    private TrackedTest() {}

    public static void main(String[] args) throws Exception {
      int window = Integer.parseInt(args[0]);
      int rounds = Integer.parseInt(args[1]);
      LeakOptions options =
          LeakOptions.builder()
              .attribution(Attribution.valueOf(args[2].toUpperCase(Locale.ROOT)))
              .build();
      var os =
          (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      // Warm-up: class loading and JIT of the tracker are not what a long suite pays per test.
      for (int i = 0; i < 2; i++) {
        tracked(window, options);
      }
      List<Long> idle = new ArrayList<>();
      List<Long> tracked = new ArrayList<>();
      List<Long> check = new ArrayList<>();
      for (int i = 0; i < rounds; i++) {
        long c0 = os.getProcessCpuTime();
        Thread.sleep(window * 1000L);
        long c1 = os.getProcessCpuTime();
        long[] r = tracked(window, options);
        long c2 = os.getProcessCpuTime();
        idle.add(c1 - c0);
        tracked.add(c2 - c1);
        check.add(r[0]);
      }
      // Means, not medians: the process CPU clock moves in 10 ms ticks here, and a mean over the
      // rounds resolves below one tick.
      long mi = mean(idle);
      long mt = mean(tracked);
      System.out.printf(
          Locale.ROOT,
          "tier %s, window %d s, %d rounds, processes in table %d: idle JVM %.1f ms CPU, tracked %.1f ms"
              + " CPU, tracking costs %.1f ms = %.2f%% of a core; check (wall) %.1f ms; loadavg %s%n",
          tracker0(options),
          window,
          rounds,
          new File("/proc").list((d, name) -> Character.isDigit(name.charAt(0))).length,
          mi / 1e6,
          mt / 1e6,
          (mt - mi) / 1e6,
          (mt - mi) / 1e7 / window,
          median(check) / 1e6,
          Files.readString(Path.of("/proc/loadavg")).trim());
    }

    /** One tracked "test"; returns the wall time of the leak check in ns. */
    private static long[] tracked(int window, LeakOptions options) throws Exception {
      LeakTracker tracker = LeakTracker.start(options, "bench");
      try {
        Thread.sleep(window * 1000L);
        long t0 = System.nanoTime();
        LeakReport report = tracker.check(Duration.ofMillis(100));
        long t1 = System.nanoTime();
        if (!report.isClean()) {
          throw new IllegalStateException("unexpected leak: " + report.render());
        }
        return new long[] {t1 - t0};
      } finally {
        tracker.close();
      }
    }

    private static String tracker0(LeakOptions options) {
      try (LeakTracker t = LeakTracker.start(options, "tier")) {
        return t.tier().toString();
      }
    }

    private static long mean(List<Long> values) {
      long sum = 0;
      for (long v : values) {
        sum += v;
      }
      return sum / values.size();
    }

    private static long median(List<Long> values) {
      List<Long> sorted = new ArrayList<>(values);
      Collections.sort(sorted);
      return sorted.get(sorted.size() / 2);
    }
  }
}
