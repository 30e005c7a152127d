package dev.lifecycle.bench;

import com.sun.jna.Library;
import com.sun.jna.Native;
import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeOptions;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@code PR_SET_CHILD_SUBREAPER} would buy the SESSION tier, and what it would cost, measured
 * instead of argued. Not a library feature: the experiment sets the flag on its own JVM through
 * JNA.
 *
 * <ol>
 *   <li><b>Escapes</b>: {@code rounds} SESSION-tier trees whose leader runs {@code env -i setsid -f
 *       sleep}, without and with the flag: where the escapee is re-parented, whether {@code
 *       terminate()} ends it, and whether it stays a zombie of this JVM after it is killed (the JDK
 *       never reaps a process it did not start) until the library reaps it by pid.
 *   <li><b>Exit statuses</b>: {@code children} {@code ProcessBuilder} children exiting with 42,
 *       while a second thread reaps adopted orphans either by pid ({@link
 *       ProcessPlatform#reapAdopted}) or with {@code waitpid(-1, WNOHANG)}: how many {@code
 *       waitFor()} results stay 42.
 * </ol>
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.lifecycle.bench.SubreaperExperiment 20 300
 * </pre>
 */
public final class SubreaperExperiment {
  private static final int PR_SET_CHILD_SUBREAPER = 36;
  private static final int WNOHANG = 1;

  /** The two libc calls the experiment needs, bound by JNA's interface mapping. */
  public interface C extends Library {
    /** {@code prctl(2)}. */
    int prctl(int option, long arg2, long arg3, long arg4, long arg5);

    /** {@code waitpid(2)}. */
    int waitpid(int pid, int[] status, int options);
  }

  private static final C LIBC = Native.load("c", C.class);
  private static final long SELF = ProcessHandle.current().pid();

  private SubreaperExperiment() {}

  public static void main(String[] args) throws Exception {
    int rounds = HarnessArgs.intArg(args, 0, 20);
    int children = HarnessArgs.intArg(args, 1, 300);
    ProcessPlatform platform = ProcessPlatform.get();
    for (boolean subreaper : new boolean[] {false, true}) {
      check(LIBC.prctl(PR_SET_CHILD_SUBREAPER, subreaper ? 1 : 0, 0, 0, 0) == 0, "prctl");
      escapes(platform, rounds, subreaper);
    }
    check(LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0, "prctl");
    statuses(platform, children, false);
    statuses(platform, children, true);
    check(LIBC.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) == 0, "prctl");
  }

  private static void escapes(ProcessPlatform platform, int rounds, boolean subreaper)
      throws Exception {
    int adopted = 0;
    int ended = 0;
    int unseen = 0;
    int zombies = 0;
    int reaped = 0;
    for (int round = 0; round < rounds; round++) {
      String nonce = "1000." + ThreadLocalRandom.current().nextInt(1_000_000, 9_999_999);
      ProcessTree tree =
          ProcessTree.spawn(
              new ProcessBuilder("sh", "-c", "env -i setsid -f sleep " + nonce + "; exec sleep 600")
                  .redirectOutput(Redirect.DISCARD),
              TreeOptions.defaults()
                  .withGrace(Duration.ofMillis(200))
                  .withContainment(Containment.Mode.SESSION));
      ProcessInfo escapee;
      try {
        escapee = awaitEscapee(platform, nonce);
      } catch (RuntimeException e) {
        tree.terminate(Duration.ZERO);
        throw e;
      }
      ProcessIdentity id = escapee.identity(ProcFs.bootId());
      if (escapee.ppid() == SELF) {
        adopted++;
      }
      TerminationReport report = tree.terminate(Duration.ofMillis(200));
      if (report.noSurvivorSeen()) { // never complete: the SESSION tier proves nothing gone
        unseen++;
      }
      if (!alive(id)) {
        ended++;
      } else {
        platform.signal(id, Signal.KILL); // the experiment ends what it started, by identity
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (alive(id) && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      // A zombie of ours stays one: nothing in the JDK waits for a pid it did not spawn.
      Thread.sleep(50);
      Optional<ProcessInfo> now = ProcFs.stat(id.pid());
      if (now.isPresent() && now.get().hasExited() && now.get().ppid() == SELF) {
        zombies++;
        if (platform.reapAdopted(id)) {
          reaped++;
        }
      }
      tree.close();
    }
    System.out.printf(
        "[escapes subreaper=%s] rounds %d: re-parented to this JVM %d, ended by SESSION terminate()"
            + " %d, reports no survivor seen %d, zombies of this JVM after the kill %d, reaped by pid %d%n",
        subreaper, rounds, adopted, ended, unseen, zombies, reaped);
  }

  private static ProcessInfo awaitEscapee(ProcessPlatform platform, String nonce)
      throws InterruptedException {
    List<String> command = List.of("sleep", nonce);
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      for (ProcessInfo row : ProcFs.snapshot().all()) {
        if (!row.hasExited()
            && platform.commandLine(row.pid()).filter(command::equals).isPresent()) {
          return row;
        }
      }
      Thread.sleep(2);
    }
    throw new IllegalStateException("the escapee sleep " + nonce + " never appeared");
  }

  private static boolean alive(ProcessIdentity id) {
    return ProcFs.stat(id.pid())
        .filter(row -> row.startTime() == id.startTime() && !row.hasExited())
        .isPresent();
  }

  /**
   * {@code children} JDK children exit 42 while orphans are adopted and reaped on another thread,
   * by pid or by {@code waitpid(-1)}: counts the {@code waitFor()} results that are still 42.
   */
  private static void statuses(ProcessPlatform platform, int children, boolean anyChild)
      throws Exception {
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger reapedByReaper = new AtomicInteger();
    List<ProcessIdentity> orphans = new ArrayList<>();
    Thread reaper =
        new Thread(
            () -> {
              int[] status = new int[1];
              while (running.get()) {
                if (anyChild) {
                  int pid = LIBC.waitpid(-1, status, WNOHANG);
                  if (pid > 0) {
                    reapedByReaper.incrementAndGet();
                    continue;
                  }
                } else {
                  synchronized (orphans) {
                    orphans.removeIf(
                        id -> {
                          if (platform.reapAdopted(id)) {
                            reapedByReaper.incrementAndGet();
                            return true;
                          }
                          return false;
                        });
                  }
                }
                Thread.onSpinWait();
              }
            },
            "experiment-reaper");
    reaper.setDaemon(true);
    reaper.start();
    int kept = 0;
    try {
      List<Process> started = new ArrayList<>();
      Set<Long> spawned = new HashSet<>();
      for (int i = 0; i < children; i++) {
        // Each child also orphans a grandchild (adopted by this JVM), which the reaper collects.
        Process p =
            new ProcessBuilder("sh", "-c", "sh -c 'exit 7' & exit 42")
                .redirectOutput(Redirect.DISCARD)
                .start();
        started.add(p);
        spawned.add(p.pid());
        if (!anyChild) {
          collectOrphans(orphans, spawned);
        }
      }
      for (Process p : started) {
        if (p.waitFor() == 42) {
          kept++;
        }
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (System.nanoTime() < deadline && !anyChild) {
        collectOrphans(orphans, spawned);
        synchronized (orphans) {
          if (orphans.isEmpty()) {
            break;
          }
        }
        Thread.sleep(5);
      }
    } finally {
      running.set(false);
      reaper.join(5000);
    }
    System.out.printf(
        "[statuses reaper=%s] %d JDK children exiting 42: waitFor() returned 42 for %d, other"
            + " values for %d; the reaper collected %d processes%n",
        anyChild ? "waitpid(-1)" : "by pid", children, kept, children - kept, reapedByReaper.get());
  }

  /** Zombies whose parent is this JVM and that the JDK did not start: adopted grandchildren. */
  private static void collectOrphans(List<ProcessIdentity> orphans, Set<Long> spawned) {
    String boot = ProcFs.bootId();
    for (ProcessInfo row : ProcFs.snapshot().all()) {
      if (row.ppid() == SELF && row.hasExited() && !spawned.contains(row.pid()) && row.pid() > 1) {
        synchronized (orphans) {
          ProcessIdentity id = row.identity(boot);
          if (!orphans.contains(id)) {
            orphans.add(id);
          }
        }
      }
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what + " failed");
    }
  }
}
