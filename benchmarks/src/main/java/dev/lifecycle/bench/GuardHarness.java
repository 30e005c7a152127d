package dev.lifecycle.bench;

import dev.lifecycle.guard.BreachHandler;
import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.process.Containment;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeOptions;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The runaway guard's cost and speed, in one JVM: the CPU of the watchdog's one sampler thread (by
 * {@link ThreadMXBean#getThreadCpuTime}) as a share of a core while it watches N idle trees ({@code
 * sleep 600}) and while it watches M spinning ones ({@code sh -c 'while :; do :; done'}, with a
 * spin share no spinner reaches, so nothing is ended), then the detection latency of a spin against
 * the window: from the spawn of a spinner to its breach, for each window.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.lifecycle.bench.GuardHarness \
 *     100 10 20 session 2,5,10</pre>
 *
 * arguments: idle trees, spinning trees, measuring seconds, tier ({@code session} or {@code auto},
 * the CGROUP tier where available), spin windows in seconds for the latency runs.
 */
public final class GuardHarness {
  private static final String SAMPLER = "lifecycle-guard";

  private GuardHarness() {}

  public static void main(String[] args) throws Exception {
    int idle = HarnessArgs.intArg(args, 0, 100);
    int spinning = HarnessArgs.intArg(args, 1, 10);
    int seconds = HarnessArgs.intArg(args, 2, 20);
    Containment.Mode mode =
        args.length > 3 && args[3].equals("auto")
            ? Containment.Mode.AUTO
            : Containment.Mode.SESSION;
    String[] windows = HarnessArgs.listArg(args, 4, "2,5,10");
    TreeOptions base =
        TreeOptions.defaults().withGrace(Duration.ofMillis(200)).withContainment(mode);
    // Watched with the MCP default rule; nothing here reaches it.
    TreeOptions watched =
        base.withCeilings(Ceilings.none().withSpin(0.9, Duration.ofMinutes(10)).withProcesses(64));
    TreeOptions neverTrips =
        base.withCeilings(Ceilings.none().withSpin(Ceilings.MAX_CPU_SHARE, Duration.ofSeconds(5)));

    List<ProcessTree> trees = new ArrayList<>();
    try {
      for (int i = 0; i < idle; i++) {
        trees.add(ProcessTree.spawn(new ProcessBuilder("sleep", "600"), watched));
      }
      Thread.sleep(3000); // the first samples prime each tree
      report(idle + " idle trees (" + mode + ")", seconds);
      for (ProcessTree t : trees) {
        t.terminateAsync(Duration.ZERO);
      }
      for (ProcessTree t : trees) {
        t.terminate();
      }
      trees.clear();

      for (int i = 0; i < spinning; i++) {
        trees.add(
            ProcessTree.spawn(new ProcessBuilder("sh", "-c", "while :; do :; done"), neverTrips));
      }
      Thread.sleep(3000);
      report(spinning + " spinning trees (" + mode + ")", seconds);
      for (ProcessTree t : trees) {
        t.terminate(Duration.ZERO);
      }
      trees.clear();

      for (String w : windows) {
        Duration window = Duration.ofSeconds(Long.parseLong(w.trim()));
        CompletableFuture<Long> seen = new CompletableFuture<>();
        long start = System.nanoTime();
        ProcessTree spinner =
            ProcessTree.spawn(
                new ProcessBuilder("sh", "-c", "while :; do :; done"),
                base.withCeilings(
                    Ceilings.none()
                        .withSpin(0.05, window)
                        .withHandler(
                            BreachHandler.notifyThenTerminate(
                                b -> seen.complete(System.nanoTime())))));
        trees.add(spinner);
        long at = seen.get(window.toSeconds() * 4 + 30, TimeUnit.SECONDS);
        spinner.terminate();
        double latency = (at - start) / 1e9;
        System.out.printf(
            Locale.ROOT,
            "spin window %d s: breach after %.2f s (%.2f s past the window)%n",
            window.toSeconds(),
            latency,
            latency - window.toSeconds());
      }
    } finally {
      for (ProcessTree t : trees) {
        t.terminate(Duration.ZERO);
      }
    }
  }

  private static void report(String what, int seconds) throws InterruptedException {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long id = samplerId();
    long cpu0 = threads.getThreadCpuTime(id);
    long wall0 = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    long cpu = threads.getThreadCpuTime(id) - cpu0;
    long wall = System.nanoTime() - wall0;
    System.out.printf(
        Locale.ROOT,
        "%s: sampler CPU %.3f%% of a core (%.1f ms over %.1f s)%n",
        what,
        100.0 * cpu / wall,
        cpu / 1e6,
        wall / 1e9);
  }

  private static long samplerId() {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals(SAMPLER)) {
        return t.getId();
      }
    }
    throw new IllegalStateException("no " + SAMPLER + " thread: nothing watched?");
  }
}
