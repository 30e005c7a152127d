package dev.lifecycle.bench;

import dev.lifecycle.inventory.FoundTree;
import dev.lifecycle.inventory.Inventory;
import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeOptions;
import java.io.File;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The cost of an inventory of the machine at a host's start-up: {@code foreign} unrelated processes
 * (sleeps, no cookie) and {@code trees} lifecycle trees of 3 processes each are started, then, in
 * rotation, {@code rounds} times each: {@link Inventory#take()} without a CPU window (one snapshot,
 * every environment read, the cgroup walk), the same in the fresh-JVM case (the first call of the
 * run), and {@code ps -e -o pid=,comm=} run and drained. Everything started is ended.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.lifecycle.bench.InventoryHarness \
 *     1000 20 15 session</pre>
 */
public final class InventoryHarness {
  private InventoryHarness() {}

  public static void main(String[] args) throws Exception {
    int foreign = HarnessArgs.intArg(args, 0, 1000);
    int treeCount = HarnessArgs.intArg(args, 1, 20);
    int rounds = HarnessArgs.intArg(args, 2, 15);
    TreeOptions options =
        TreeOptions.defaults()
            .withContainment(
                args.length > 3 && args[3].equals("cgroup")
                    ? Containment.Mode.REQUIRE_CGROUP
                    : Containment.Mode.SESSION);
    ProcessPlatform platform = ProcessPlatform.get();
    List<Process> strangers = new ArrayList<>();
    List<ProcessTree> trees = new ArrayList<>();
    try {
      for (int i = 0; i < foreign; i++) {
        strangers.add(
            new ProcessBuilder("sleep", "600")
                .redirectInput(Redirect.from(new File("/dev/null")))
                .redirectOutput(Redirect.DISCARD)
                .redirectError(Redirect.DISCARD)
                .start());
      }
      for (int i = 0; i < treeCount; i++) {
        trees.add(
            ProcessTree.spawn(
                platform,
                new ProcessBuilder("sh", "-c", "sleep 600 & sleep 600 & wait")
                    .redirectOutput(Redirect.DISCARD),
                options));
      }
      Inventory inventory = Inventory.of(platform).withWindow(Duration.ZERO);
      long t0 = System.nanoTime();
      List<FoundTree> first = inventory.take();
      double firstMs = (System.nanoTime() - t0) / 1e6;
      // Until every tree shows its 3 members (the shells fork their sleeps after the spawn).
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (System.nanoTime() < deadline && ours(inventory.take(), trees) < treeCount * 3) {
        Thread.sleep(50);
      }
      double[] inv = new double[rounds];
      double[] ps = new double[rounds];
      int found = 0;
      for (int r = 0; r < rounds; r++) {
        long s = System.nanoTime();
        List<FoundTree> seen = inventory.take();
        inv[r] = (System.nanoTime() - s) / 1e6;
        found = ours(seen, trees);
        s = System.nanoTime();
        Process p = new ProcessBuilder("ps", "-e", "-o", "pid=,comm=").start();
        p.getInputStream().readAllBytes();
        p.waitFor();
        ps[r] = (System.nanoTime() - s) / 1e6;
      }
      int processes = platform.snapshot().size();
      System.out.printf(
          Locale.ROOT,
          "machine: %d processes (%d foreign sleeps, %d trees of ours, %s tier), %d members of"
              + " ours found%n",
          processes,
          foreign,
          treeCount,
          trees.get(0).tier(),
          found);
      System.out.printf(
          Locale.ROOT, "first inventory of the run: %.1f ms (%d trees)%n", firstMs, first.size());
      System.out.println("inventory: " + Stats.describe(inv, "ms"));
      System.out.println("ps -e:     " + Stats.describe(ps, "ms"));
      System.out.printf(
          Locale.ROOT,
          "ratio inventory / ps -e (medians): %.2f; inventory per process: %.1f us%n",
          Stats.median(inv) / Stats.median(ps),
          Stats.median(inv) * 1000 / processes);
    } finally {
      for (ProcessTree t : trees) {
        t.terminate(Duration.ZERO);
      }
      for (Process p : strangers) {
        p.destroyForcibly();
      }
      for (Process p : strangers) {
        p.waitFor();
      }
    }
  }

  private static int ours(List<FoundTree> seen, List<ProcessTree> trees) {
    int n = 0;
    for (FoundTree f : seen) {
      for (ProcessTree t : trees) {
        if (f.id().equals(t.cookie())
            || t.cgroup().map(c -> c.getFileName().toString()).orElse("").equals(f.id())) {
          n += f.members().size();
        }
      }
    }
    return n;
  }
}
