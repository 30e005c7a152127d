package dev.lifecycle.examples;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeMember;
import dev.lifecycle.tree.TreeOptions;
import java.io.File;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The smallest end-to-end example: an adversarial tree (every member ignores SIGTERM, one escapes
 * with setsid, one double-forks a daemon) is ended whole by {@link ProcessTree#terminate}, and the
 * demo proves every process it saw is gone. {@code Process.destroy()} alone would have left all but
 * the leader running.
 */
public final class TreeDemo {
  private static final Duration GRACE = Duration.ofMillis(500);

  // A leader that ignores SIGTERM (ignored dispositions are inherited by its children), three
  // children, a setsid escapee and a double-forked setsid daemon that only the cookie still names.
  private static final String ADVERSARY =
      "trap '' TERM; sleep 300 & sleep 300 & sleep 300 & setsid sleep 300 &"
          + " ( setsid sleep 300 & ) ; exec sleep 300";

  private TreeDemo() {}

  public static void main(String[] args) throws Exception {
    ProcessPlatform os = ProcessPlatform.get();
    System.out.println("platform: " + os.capabilities().platform());
    ProcessBuilder builder =
        new ProcessBuilder("sh", "-c", ADVERSARY)
            .redirectInput(Redirect.from(new File("/dev/null")))
            .redirectOutput(Redirect.DISCARD)
            .redirectError(Redirect.INHERIT);
    Map<Long, TreeMember> seen = new LinkedHashMap<>();
    boolean clean;
    try (ProcessTree tree = ProcessTree.spawn(os, builder, TreeOptions.defaults())) {
      System.out.println("spawned " + tree);
      awaitMembers(tree, seen, 6, Duration.ofSeconds(5));
      System.out.printf("%n%-8s %-8s %-8s %-10s %s%n", "pid", "pgid", "sid", "found by", "cmd");
      seen.values()
          .forEach(
              m ->
                  System.out.printf(
                      "%-8d %-8d %-8d %-10s %s%n",
                      m.pid(), m.processGroupId(), m.sessionId(), m.foundBy(), m.command()));
      TerminationReport report = tree.terminate(GRACE);
      System.out.println("\n" + report);
      clean = report.noSurvivorSeen(); // each process is also probed below
    }
    System.out.printf("%n%-8s %s%n", "pid", "final state");
    for (TreeMember m : seen.values()) {
      Liveness now = os.probe(m.identity());
      clean &= now == Liveness.GONE;
      System.out.printf("%-8d %s%n", m.pid(), now);
    }
    System.out.println(
        clean
            ? "\nall " + seen.size() + " processes the demo started are gone"
            : "\nSOME PROCESSES SURVIVED");
    System.exit(clean ? 0 : 1);
  }

  /** Polls the tree's view (bounded) until it has seen {@code count} processes. */
  private static void awaitMembers(
      ProcessTree tree, Map<Long, TreeMember> seen, int count, Duration bound)
      throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (seen.size() < count && System.nanoTime() < deadline) {
      tree.view().all().stream()
          .filter(m -> m.command().equals("sleep"))
          .forEach(m -> seen.putIfAbsent(m.pid(), m));
      Thread.sleep(20);
    }
  }
}
