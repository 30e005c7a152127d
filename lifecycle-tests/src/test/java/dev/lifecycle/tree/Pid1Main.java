package dev.lifecycle.tree;

import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.testing.Await;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/**
 * Runs as PID 1 of a fresh PID namespace (see {@link Pid1ReapingTest}): spawns a tree whose members
 * double-fork (orphans adopted by this JVM), one of which dies before the termination, plus a
 * setsid escapee with a child (all up before the termination); terminates it; prints the zombies
 * left in this namespace, the exit code of a plain JDK child that exited meanwhile, and whether a
 * termination the SESSION tier cannot prove reads as incomplete.
 */
final class Pid1Main {
  private Pid1Main() {}

  public static void main(String[] args) throws Exception {
    long self = ProcessHandle.current().pid();
    System.out.println("PID " + self);
    ProcessPlatform platform = ProcessPlatform.get();
    System.out.println("PLATFORM " + platform.capabilities().platform());
    // Its status must reach Process.waitFor, not the reaping (it exits during the termination).
    Process jdkChild = new ProcessBuilder("sh", "-c", "sleep 0.3; exit 42").start();
    String script =
        "for i in 1 2 3 4; do (sleep 300 &); done;" // double fork: the sleeps are adopted by PID 1
            + " (sh -c 'sleep 0.05' &);" // an orphan that dies before the termination
            + " setsid sh -c 'sleep 300 & exec sleep 300' &" // an escapee and its child
            + " exec sleep 300";
    ProcessTree tree =
        ProcessTree.spawn(
            platform,
            new ProcessBuilder("sh", "-c", script).redirectOutput(Redirect.DISCARD),
            TreeOptions.defaults());
    System.out.println("TIER " + tree.tier());
    long leader = tree.leader().pid();
    List<ProcessInfo> adopted =
        awaitRows(
            platform,
            p -> p.ppid() == self && p.pid() != leader && p.command().equals("sleep"),
            list -> list.size() >= 4); // the four double-forked sleeps
    System.out.println("ADOPTED " + adopted.size());
    // The escapee's two sleeps: the session of a child of the leader that left the tree's session.
    List<ProcessInfo> escapee =
        Await.within(
            Duration.ofSeconds(10),
            () -> {
              ProcessTable table = platform.snapshot();
              return table.filter(
                  p ->
                      p.command().equals("sleep")
                          && p.sid() != leader
                          && table.get(p.sid()).filter(s -> s.ppid() == leader).isPresent());
            },
            list -> list.size() >= 2);
    System.out.println("ESCAPEE " + escapee.size());
    TerminationReport report = tree.terminate(Duration.ofSeconds(2));
    System.out.println("COMPLETE " + report.isComplete());
    System.out.println("NONE-SEEN " + report.noSurvivorSeen());
    List<ProcessInfo> zombies =
        awaitRows(platform, p -> p.hasExited() && p.pid() != jdkChild.pid(), List::isEmpty);
    System.out.println("ZOMBIES " + zombies.size() + " " + zombies);
    System.out.println("JDK-EXIT " + jdkChild.waitFor());

    // A process started after the leader with an empty environment: SESSION cannot rule it out.
    ProcessTree second =
        ProcessTree.spawn(
            platform,
            new ProcessBuilder("sleep", "300").redirectOutput(Redirect.DISCARD),
            TreeOptions.defaults().withContainment(Containment.Mode.SESSION));
    ProcessBuilder blindBuilder = new ProcessBuilder("sleep", "300");
    blindBuilder.environment().clear();
    Process blind = blindBuilder.start();
    try {
      System.out.println("SECOND-TIER " + second.tier());
      TerminationReport blindReport = second.terminate(Duration.ZERO);
      System.out.println("SECOND-COMPLETE " + blindReport.isComplete());
      System.out.println("SECOND-NONE-SEEN " + blindReport.noSurvivorSeen());
    } finally {
      blind.destroyForcibly();
      System.out.println("BLIND-EXIT " + blind.waitFor());
    }
  }

  /**
   * The rows {@code which} keeps of the process table, polled until {@code done} (10 s at most).
   */
  private static List<ProcessInfo> awaitRows(
      ProcessPlatform platform, Predicate<ProcessInfo> which, Predicate<List<ProcessInfo>> done) {
    return Await.within(
        Duration.ofSeconds(10),
        () -> platform.snapshot().all().stream().filter(which).toList(),
        done);
  }
}
