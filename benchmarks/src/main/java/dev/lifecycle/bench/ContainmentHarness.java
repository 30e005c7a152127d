package dev.lifecycle.bench;

import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeOptions;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The cost of the containment tiers, {@code rounds} times each, tiers in rotation:
 *
 * <ul>
 *   <li>{@code spawn}: {@link ProcessTree#spawn} of {@code /bin/true} until it returns, in the
 *       CGROUP tier (mkdir of the cgroup, the move, the entry check) and in the SESSION tier;
 *   <li>{@code tether <foreign>}: a tether with one bound 21-process tree that dies on SIGTERM,
 *       {@link Tether#closeAndKill()} until the tree is verified empty, with {@code foreign}
 *       unrelated processes running (0 and 1000: the tether's cost must not grow with them).
 * </ul>
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.lifecycle.bench.ContainmentHarness spawn 200
 * java -cp benchmarks/target/benchmarks.jar dev.lifecycle.bench.ContainmentHarness tether 10 1000
 * </pre>
 */
public final class ContainmentHarness {
  private static final Containment.Mode[] TIERS = {
    Containment.Mode.REQUIRE_CGROUP, Containment.Mode.SESSION
  };

  private ContainmentHarness() {}

  public static void main(String[] args) throws Exception {
    String what = HarnessArgs.arg(args, 0, "spawn");
    int rounds = HarnessArgs.intArg(args, 1, 100);
    int foreign = HarnessArgs.intArg(args, 2, 0);
    List<List<Double>> times = List.of(new ArrayList<>(), new ArrayList<>());
    ProcessTree crowd = foreign > 0 ? crowd(foreign) : null;
    try {
      for (int round = 0; round < rounds; round++) {
        for (int t = 0; t < TIERS.length; t++) {
          double ms = what.equals("spawn") ? spawn(TIERS[t]) : tether(TIERS[t]);
          times.get(t).add(ms);
        }
      }
    } finally {
      if (crowd != null) {
        crowd.terminate(Duration.ZERO);
      }
    }
    for (int t = 0; t < TIERS.length; t++) {
      double[] values = times.get(t).stream().mapToDouble(Double::doubleValue).toArray();
      System.out.printf(
          Locale.ROOT,
          "[%s foreign=%d] %-14s %s%n",
          what,
          foreign,
          TIERS[t],
          Stats.describe(values, "ms"));
    }
  }

  private static TreeOptions options(Containment.Mode mode) {
    return TreeOptions.defaults().withGrace(Duration.ZERO).withContainment(mode);
  }

  private static double spawn(Containment.Mode mode) throws Exception {
    long t0 = System.nanoTime();
    ProcessTree tree = ProcessTree.spawn(new ProcessBuilder("/bin/true"), options(mode));
    double ms = (System.nanoTime() - t0) / 1e6;
    tree.leader().waitFor();
    tree.terminate(Duration.ZERO);
    return ms;
  }

  private static double tether(Containment.Mode mode) throws Exception {
    try (Tether tether = Tether.builder().grace(Duration.ofSeconds(5)).start()) {
      ProcessTree tree =
          tether
              .spawn(
                  ProcessPlatform.get(),
                  Trees.builder(21, false).redirectOutput(Redirect.DISCARD),
                  options(mode))
              .tree();
      Trees.awaitSize(tree.leader().pid(), 21, Duration.ofSeconds(60));
      // The tree cannot grow once it has its 21 members: polling exactly them is the verification,
      // and a full /proc scan per poll would charge the harness's own cost to the tether.
      List<ProcessInfo> members = Trees.members(tree.leader().pid());
      long t0 = System.nanoTime();
      tether.closeAndKill();
      if (!Trees.awaitGone(members, Duration.ofSeconds(30))) {
        throw new IllegalStateException("tree survived the tether");
      }
      double ms = (System.nanoTime() - t0) / 1e6;
      if (Trees.liveInSession(tree.leader().pid()) > 0) { // untimed: the whole session is gone
        throw new IllegalStateException("session survived the tether");
      }
      tree.terminate(Duration.ZERO);
      return ms;
    }
  }

  private static ProcessTree crowd(int n) throws Exception {
    ProcessTree crowd =
        ProcessTree.spawn(
            new ProcessBuilder(
                    "sh",
                    "-c",
                    "i=0; while [ $i -lt " + n + " ]; do sleep 600 & i=$((i+1)); done; wait")
                .redirectOutput(Redirect.DISCARD),
            TreeOptions.defaults().withGrace(Duration.ZERO));
    Trees.awaitSize(crowd.leader().pid(), n + 1, Duration.ofSeconds(120));
    return crowd;
  }
}
