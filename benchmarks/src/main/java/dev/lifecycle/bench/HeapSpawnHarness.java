package dev.lifecycle.bench;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import java.util.Locale;

/**
 * Spawn + wait of {@code /bin/true} with a large touched heap: allocates and writes every page of
 * {@code args[0]} GiB (kept reachable), then times our new-session spawn and {@link
 * ProcessBuilder#start()} alternately, {@code args[1]} times each (default 300) after {@code
 * args[2]} warm-up rounds each (default 1000, so that the JNA path is compiled, as in JMH). A
 * fork()-based launcher would copy page tables and grow with the heap; posix_spawn (CLONE_VFORK)
 * should stay flat.
 *
 * <pre>java -Xms10g -Xmx10g -cp benchmarks/target/benchmarks.jar \
 *     dev.lifecycle.bench.HeapSpawnHarness 8 300</pre>
 */
public final class HeapSpawnHarness {
  private static final int CHUNK = 64 << 20;

  private HeapSpawnHarness() {}

  public static void main(String[] args) throws Exception {
    int gib = HarnessArgs.intArg(args, 0, 0);
    int rounds = HarnessArgs.intArg(args, 1, 300);
    int warmup = HarnessArgs.intArg(args, 2, 1000);
    byte[][] heap = new byte[gib * (1024 / 64)][];
    for (int i = 0; i < heap.length; i++) {
      heap[i] = new byte[CHUNK];
      for (int j = 0; j < CHUNK; j += 4096) {
        heap[i][j] = (byte) (j + 1);
      }
    }
    System.gc();
    System.out.println("[heap] touched " + gib + " GiB; " + rss());
    ProcessPlatform posix = ProcessPlatform.get();
    double[] ours = new double[rounds];
    double[] jdk = new double[rounds];
    for (int i = -warmup; i < rounds; i++) {
      long t0 = System.nanoTime();
      SpawnBenchmark.finish(posix.spawn(new ProcessBuilder("/bin/true"), SpawnOptions.defaults()));
      long t1 = System.nanoTime();
      SpawnBenchmark.finish(new ProcessBuilder("/bin/true").start());
      long t2 = System.nanoTime();
      if (i >= 0) {
        ours[i] = (t1 - t0) / 1e6;
        jdk[i] = (t2 - t1) / 1e6;
      }
    }
    long sum = 0;
    for (byte[] chunk : heap) {
      sum += chunk[0];
    }
    System.out.println(
        "[heap " + gib + " GiB] lifecycle new session: " + Stats.describe(ours, "ms"));
    System.out.println(
        "[heap " + gib + " GiB] ProcessBuilder.start(): " + Stats.describe(jdk, "ms"));
    System.out.printf(
        Locale.ROOT,
        "[heap %d GiB] ratio lifecycle/ProcessBuilder (medians): %.2f  (%s, checksum %d)%n",
        gib,
        Stats.median(ours) / Stats.median(jdk),
        rss(),
        sum);
  }

  static String rss() {
    try {
      for (String line :
          java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS")) {
          return line.replaceAll("\\s+", " ");
        }
      }
    } catch (java.io.IOException e) {
      return "VmRSS ?";
    }
    return "VmRSS ?";
  }
}
