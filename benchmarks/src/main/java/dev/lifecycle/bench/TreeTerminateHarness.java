package dev.lifecycle.bench;

import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Terminating a whole process tree to verified empty (no member of the tree's session left but
 * zombies), three ways, in rotation, {@code rounds} times each:
 *
 * <ul>
 *   <li>{@code cgroup}: {@link ProcessTree#terminate(Duration)} in the CGROUP tier (members from
 *       cgroup.procs, cgroup.kill, populated 0 by inotify);
 *   <li>{@code session}: the same in the SESSION tier (its own /proc scans verify);
 *   <li>{@code jdk}: {@code ProcessHandle.descendants()} of the leader, {@code destroy()} of each,
 *       the grace, {@code destroyForcibly()} of each still alive;
 *   <li>{@code killpg}: the platform's {@code signalGroup} TERM, the grace, KILL.
 * </ul>
 *
 * The jdk and killpg variants wait with the same {@code /proc} poll (1 ms apart) during the grace
 * and after SIGKILL. Scenarios: {@code term200} (200 processes that ignore SIGTERM, grace {@code
 * graceMs}) and {@code kill1000} (1,000 processes, grace 0: SIGKILL at once).
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.lifecycle.bench.TreeTerminateHarness \
 *     term200 5 200</pre>
 */
public final class TreeTerminateHarness {
  private TreeTerminateHarness() {}

  public static void main(String[] args) throws Exception {
    String scenario = HarnessArgs.arg(args, 0, "term200");
    int rounds = HarnessArgs.intArg(args, 1, 5);
    long graceMs = args.length > 2 ? Long.parseLong(args[2]) : 200;
    boolean term = scenario.startsWith("term");
    int size = Integer.parseInt(scenario.replaceAll("\\D", ""));
    Duration grace = Duration.ofMillis(term ? graceMs : 0);
    ProcessPlatform posix = ProcessPlatform.get();
    String[] ways = {"cgroup", "session", "jdk", "killpg"};
    List<List<Double>> times =
        List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (int round = 0; round < rounds; round++) {
      for (int w = 0; w < ways.length; w++) {
        double ms = run(posix, ways[w], size, term, grace);
        times.get(w).add(ms);
        System.out.printf(Locale.ROOT, "  round %d %-9s %.1f ms%n", round, ways[w], ms);
      }
    }
    double[] raw = toArray(times.get(3));
    System.out.printf(
        Locale.ROOT,
        "[%s grace=%d ms] ways to verified empty (ratio of medians to killpg)%n",
        scenario,
        grace.toMillis());
    for (int w = 0; w < ways.length; w++) {
      double[] values = toArray(times.get(w));
      System.out.printf(
          Locale.ROOT,
          "[%s] %-9s %s  ratio %.2f  over grace %.1f ms%n",
          scenario,
          ways[w],
          Stats.describe(values, "ms"),
          Stats.median(values) / Stats.median(raw),
          Stats.median(values) - grace.toMillis());
    }
  }

  private static double run(
      ProcessPlatform posix, String way, int size, boolean term, Duration grace) throws Exception {
    ProcessBuilder builder = Trees.builder(size, term);
    ProcessTree tree = null;
    SupervisedProcess leader;
    if (way.equals("cgroup") || way.equals("session")) {
      Containment.Mode mode =
          way.equals("cgroup") ? Containment.Mode.REQUIRE_CGROUP : Containment.Mode.SESSION;
      tree =
          ProcessTree.spawn(builder, TreeOptions.defaults().withGrace(grace).withContainment(mode));
      leader = tree.leader();
    } else {
      leader = posix.spawn(builder);
    }
    long sid = leader.pid();
    try {
      Trees.awaitSize(sid, size, Duration.ofSeconds(120));
      Thread.sleep(200); // let the shells settle in wait
      long t0 = System.nanoTime();
      switch (way) {
        case "cgroup", "session" -> {
          TerminationReport report = tree.terminate(grace);
          if (!report.noSurvivorSeen()) {
            System.out.println("  left something: " + report);
          }
        }
        case "jdk" -> {
          ProcessHandle root = leader.toHandle();
          List<ProcessHandle> all = new ArrayList<>(root.descendants().toList());
          all.add(0, root);
          if (!grace.isZero()) {
            all.forEach(ProcessHandle::destroy);
            awaitEmptyUntil(sid, t0 + grace.toNanos());
          }
          for (ProcessHandle h : all) {
            if (h.isAlive()) {
              h.destroyForcibly();
            }
          }
          require(Trees.awaitEmpty(sid, Duration.ofSeconds(30)), sid);
        }
        case "killpg" -> {
          if (!grace.isZero()) {
            posix.signalGroup(sid, Signal.TERM);
            awaitEmptyUntil(sid, t0 + grace.toNanos());
          }
          posix.signalGroup(sid, Signal.KILL);
          require(Trees.awaitEmpty(sid, Duration.ofSeconds(30)), sid);
        }
        default -> throw new IllegalArgumentException(way);
      }
      double ms = (System.nanoTime() - t0) / 1e6;
      int left = Trees.liveInSession(sid);
      if (left > 0) {
        System.out.println("  " + way + ": " + left + " processes left after it reported done");
      }
      return ms;
    } finally {
      Trees.killAndVerify(posix, sid);
      if (tree != null) {
        tree.close();
      }
      leader.waitFor();
    }
  }

  private static void awaitEmptyUntil(long sid, long deadline) throws InterruptedException {
    while (System.nanoTime() < deadline && Trees.liveInSession(sid) > 0) {
      Thread.sleep(1);
    }
  }

  private static void require(boolean empty, long sid) {
    if (!empty) {
      throw new IllegalStateException("session " + sid + " not empty after 30 s");
    }
  }

  private static double[] toArray(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
