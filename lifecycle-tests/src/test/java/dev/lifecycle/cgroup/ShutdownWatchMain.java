package dev.lifecycle.cgroup;

import dev.lifecycle.process.Containment;
import dev.lifecycle.testing.Await;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeOptions;
import java.time.Duration;

/**
 * Run by {@link ShutdownWatchTest}: a CGROUP tree that ignores SIGTERM, still running when {@code
 * main} returns, and a shutdown hook that waits (bounded) for the JDK's inotify thread to stop,
 * then ends the tree, which needs SIGKILL and then {@code populated 0} seen during shutdown.
 */
public final class ShutdownWatchMain {
  /** The thread the JDK's watch service reads inotify on (sun.nio.fs.AbstractPoller). */
  static final String JDK_WATCH_THREAD = "FileSystemWatchService";

  private ShutdownWatchMain() {}

  public static void main(String[] args) throws Exception {
    ProcessTree tree =
        ProcessTree.spawn(
            // TERM ignored: the grace-0 termination must SIGKILL and then see populated 0
            new ProcessBuilder("/bin/sh", "-c", "trap '' TERM; exec sleep 30"),
            TreeOptions.defaults().withContainment(Containment.Mode.REQUIRE_CGROUP));
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  boolean stopped =
                      Await.within(Duration.ofSeconds(10), () -> !running(JDK_WATCH_THREAD));
                  System.out.println("watch thread stopped: " + stopped);
                  TerminationReport report = tree.terminate(Duration.ZERO);
                  System.out.println(
                      "ended at shutdown: "
                          + report.isComplete()
                          + " "
                          + report.tier()
                          + " "
                          + report.endedBy());
                },
                "test-shutdown"));
    System.out.println(
        "tier " + tree.tier() + ", watch thread running: " + running(JDK_WATCH_THREAD));
  }

  private static boolean running(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals(name) && t.isAlive());
  }
}
