package demo;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.time.Limit;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeMember;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Spawns a three-process tree, terminates it and prints what the test checks, line by line. */
public final class Main {
  public static void main(String[] args) throws Exception {
    Module core = ProcessPlatform.class.getModule();
    System.out.println("core module: " + (core.isNamed() ? core.getName() : "unnamed"));
    System.out.println(
        "procfs exported to demo: "
            + core.isExported("dev.lifecycle.process.procfs", Main.class.getModule()));
    System.out.println("jdk fallback exported: " + core.isExported("dev.lifecycle.process.jdk"));
    System.out.println("platform: " + ProcessPlatform.get().capabilities().platform());
    // Logs one WARN through slf4j: the case that failed with NoClassDefFoundError before.
    System.out.println("limit: " + Limit.parseOr("soon", Limit.ofSeconds(90), "demo value"));
    ProcessBuilder builder =
        new ProcessBuilder("sh", "-c", "sleep 300 & sleep 300 & echo ready; wait");
    try (ProcessTree tree = ProcessTree.spawn(builder)) {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(tree.leader().getInputStream(), StandardCharsets.UTF_8));
      if (!"ready".equals(out.readLine())) {
        throw new IllegalStateException("the tree did not start");
      }
      for (TreeMember member : tree.members()) {
        System.out.println(
            "member: " + member.identity().pid() + " " + member.identity().startTime());
      }
      TerminationReport report = tree.terminate(Duration.ofSeconds(2));
      System.out.println("complete: " + report.isComplete());
      System.out.println("no survivor seen: " + report.noSurvivorSeen());
    }
  }
}
