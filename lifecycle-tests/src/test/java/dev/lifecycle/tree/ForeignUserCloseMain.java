package dev.lifecycle.tree;

import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The child JVM of {@link ForeignUserProcessTest}, run as {@code nobody}: starts a SESSION-tier
 * tree, prints {@code READY <leader pid> <leader start>}, reads the pid of another user's process
 * from stdin, prints what it can know of that process, ends its tree and prints the report's
 * verdict and its unprovable lines.
 */
public final class ForeignUserCloseMain {
  private ForeignUserCloseMain() {}

  public static void main(String[] args) throws Exception {
    ProcessPlatform platform = ProcessPlatform.get();
    ProcessTree tree =
        ProcessTree.spawn(
            platform,
            new ProcessBuilder("sleep", "300"),
            TreeOptions.defaults()
                .withGrace(Duration.ofMillis(500))
                .withContainment(Containment.Mode.SESSION));
    ProcessIdentity leader = tree.leader().identity();
    System.out.println("READY " + leader.pid() + " " + leader.startTime());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    long foreign = Long.parseLong(in.readLine().trim());
    System.out.println("environment " + platform.environmentEntry(foreign, "A", "b"));
    System.out.println("probe " + platform.probe(foreign));
    TerminationReport report = tree.terminate();
    System.out.println("tier " + report.tier());
    System.out.println("noSurvivorSeen " + report.noSurvivorSeen());
    for (String line : report.unprovable()) {
      System.out.println("unprovable " + line);
    }
    System.out.println("report " + report);
    System.out.flush();
  }
}
