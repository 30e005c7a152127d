package dev.lifecycle.bench;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.procfs.ProcFs;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An idle supervisor of N live children ({@code sleep 600}), measured from outside: a child JVM per
 * mode spawns the children and registers an exit callback for each, then idles; after a warm-up
 * this process samples the supervisor's CPU ({@code /proc/<pid>/stat} utime+stime, and the
 * per-thread {@code schedstat} run time in ns), its context switches (per-thread voluntary +
 * involuntary: wakeups), thread count and RSS over a window.
 *
 * <ul>
 *   <li>{@code baseline}: an idle JVM, no children;
 *   <li>{@code lifecycle}: children spawned by the JNA platform (each in a session of its own),
 *       exits watched by its single pidfd/epoll thread, {@code onExit()} callbacks registered;
 *   <li>{@code jdk}: {@link ProcessBuilder#start()} and {@code Process.onExit()} for each.
 * </ul>
 *
 * At the end the supervisor kills its children (by group for ours, {@code destroyForcibly} for the
 * JDK's) and waits for every exit callback; this process then kills the supervisor's session and
 * sweeps by an environment marker, and verifies that nothing it started is left.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.lifecycle.bench.SupervisorHarness \
 *     1000 10 5 baseline,lifecycle,jdk</pre>
 *
 * arguments: children, window seconds, warm-up seconds, modes.
 */
public final class SupervisorHarness {
  static final String MARKER = "LIFECYCLE_BENCH_RUN";

  private SupervisorHarness() {}

  public static void main(String[] args) throws Exception {
    int children = HarnessArgs.intArg(args, 0, 1000);
    int window = HarnessArgs.intArg(args, 1, 10);
    int warmup = HarnessArgs.intArg(args, 2, 5);
    String[] modes = HarnessArgs.listArg(args, 3, "baseline,lifecycle,jdk");
    ProcessPlatform posix = ProcessPlatform.get();
    for (String mode : modes) {
      int n = mode.equals("baseline") ? 0 : children;
      String run = UUID.randomUUID().toString();
      ProcessBuilder builder =
          new ProcessBuilder(
              HarnessJvm.java(),
              "-Xmx2g",
              "-cp",
              HarnessJvm.jar(),
              Supervisor.class.getName(),
              mode,
              Integer.toString(n));
      builder.environment().put(MARKER, run);
      builder.redirectError(Redirect.INHERIT);
      SupervisedProcess jvm = posix.spawn(builder);
      try {
        BufferedReader out =
            new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
        String ready = out.readLine();
        if (ready == null || !ready.startsWith("READY")) {
          throw new IllegalStateException(mode + ": supervisor said " + ready);
        }
        Thread.sleep(warmup * 1000L);
        Sample before = Sample.of(jvm.pid());
        Thread.sleep(window * 1000L);
        Sample after = Sample.of(jvm.pid());
        OutputStream in = jvm.getOutputStream();
        in.write("STOP\n".getBytes(StandardCharsets.UTF_8));
        in.flush();
        String done = out.readLine();
        System.out.printf(
            Locale.ROOT,
            "[%s n=%d] %s; window %d s: cpu %d ms (stat ticks), %.1f ms (schedstat), "
                + "wakeups %d (%.1f/s); threads %d; RSS %d MiB; top wakers %s; %s%n",
            mode,
            n,
            ready,
            window,
            (after.cpuTicks - before.cpuTicks) * 10,
            (after.runNanos - before.runNanos) / 1e6,
            after.switches - before.switches,
            (after.switches - before.switches) / (double) window,
            after.threads,
            after.rssKib / 1024,
            topWakers(before, after),
            done);
        jvm.waitFor(60, TimeUnit.SECONDS);
      } finally {
        cleanup(posix, jvm, run);
      }
    }
  }

  /** Kills whatever the supervisor left (by group, then by marker) and verifies none remain. */
  private static void cleanup(ProcessPlatform posix, SupervisedProcess jvm, String run)
      throws InterruptedException {
    try {
      posix.signalGroup(jvm.pid(), Signal.KILL);
    } catch (RuntimeException e) {
      // the group is gone
    }
    jvm.waitFor();
    for (int attempt = 0; attempt < 50; attempt++) {
      Set<Long> left = ProcFs.findByEnvironment(MARKER, run);
      left.removeIf(pid -> ProcFs.stat(pid).map(r -> r.state().hasExited()).orElse(true));
      if (left.isEmpty()) {
        System.out.println("  cleanup: no process of run " + run + " left");
        return;
      }
      for (long pid : left) {
        posix.signal(dev.lifecycle.process.ProcessIdentity.ofPid(pid), Signal.KILL);
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("processes of run " + run + " survive");
  }

  private static String topWakers(Sample before, Sample after) {
    List<Map.Entry<String, Long>> deltas = new ArrayList<>();
    after.perThread.forEach(
        (tid, value) -> {
          long delta = value - before.perThread.getOrDefault(tid, 0L);
          if (delta > 0) {
            deltas.add(Map.entry(after.names.get(tid), delta));
          }
        });
    deltas.sort(Map.Entry.<String, Long>comparingByValue().reversed());
    return deltas.subList(0, Math.min(6, deltas.size())).toString();
  }

  /** One reading of a process: CPU, context switches per thread, threads, RSS. */
  record Sample(
      long cpuTicks,
      long runNanos,
      long switches,
      int threads,
      long rssKib,
      Map<Long, Long> perThread,
      Map<Long, String> names) {
    static Sample of(long pid) throws IOException {
      Path proc = Path.of("/proc", Long.toString(pid));
      String stat = Files.readString(proc.resolve("stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14, 15
      long run = 0;
      long switches = 0;
      Map<Long, Long> perThread = new HashMap<>();
      Map<Long, String> names = new HashMap<>();
      int threads = 0;
      try (var tasks = Files.newDirectoryStream(proc.resolve("task"))) {
        for (Path task : tasks) {
          try {
            long tid = Long.parseLong(task.getFileName().toString());
            run += Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ")[0]);
            long s = 0;
            for (String line : Files.readAllLines(task.resolve("status"))) {
              if (line.startsWith("voluntary_ctxt_switches")
                  || line.startsWith("nonvoluntary_ctxt_switches")) {
                s += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
              }
            }
            switches += s;
            perThread.put(tid, s);
            names.put(tid, Files.readString(task.resolve("comm")).trim());
            threads++;
          } catch (IOException | RuntimeException e) {
            // the thread ended meanwhile
          }
        }
      }
      long rss = 0;
      for (String line : Files.readAllLines(proc.resolve("status"))) {
        if (line.startsWith("VmRSS")) {
          rss = Long.parseLong(line.replaceAll("\\D", ""));
        }
      }
      return new Sample(ticks, run, switches, threads, rss, perThread, names);
    }
  }

  /** The supervisor JVM: spawns, idles until told to stop, kills and awaits its children. */
  public static final class Supervisor {
    private Supervisor() {}

    public static void main(String[] args) throws Exception {
      String mode = args[0];
      int n = Integer.parseInt(args[1]);
      List<Process> children = new ArrayList<>(n);
      List<CompletableFuture<Process>> exits = new ArrayList<>(n);
      ProcessPlatform posix = mode.equals("lifecycle") ? ProcessPlatform.get() : null;
      long t0 = System.nanoTime();
      long firstTenth = 0;
      long lastTenth = 0;
      try {
        for (int i = 0; i < n; i++) {
          long s0 = System.nanoTime();
          ProcessBuilder builder = new ProcessBuilder("sleep", "600");
          builder.redirectInput(Redirect.from(new File("/dev/null")));
          builder.redirectOutput(Redirect.DISCARD).redirectError(Redirect.DISCARD);
          Process child = posix != null ? posix.spawn(builder) : builder.start();
          children.add(child);
          exits.add(child.onExit());
          long took = System.nanoTime() - s0;
          if (i < n / 10) {
            firstTenth += took;
          } else if (i >= n - n / 10) {
            lastTenth += took;
          }
        }
        long spawnMs = (System.nanoTime() - t0) / 1_000_000;
        long tenth = Math.max(1, n / 10);
        System.out.println(
            "READY spawned "
                + n
                + " in "
                + spawnMs
                + " ms (first tenth "
                + firstTenth / 1000 / tenth
                + " us each, last tenth "
                + lastTenth / 1000 / tenth
                + " us each)");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      } finally {
        long k0 = System.nanoTime();
        for (Process child : children) {
          if (child instanceof SupervisedProcess supervised) {
            posix.signalGroup(supervised.processGroupId(), Signal.KILL);
          } else {
            child.destroyForcibly();
          }
        }
        CompletableFuture.allOf(exits.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        System.out.println(
            "killed and saw all "
                + n
                + " exits in "
                + (System.nanoTime() - k0) / 1_000_000
                + " ms");
        System.out.flush();
      }
    }
  }
}
