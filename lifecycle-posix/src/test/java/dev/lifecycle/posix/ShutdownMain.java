package dev.lifecycle.posix;

import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.testing.Await;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link ExitWatcherTest} in a JVM of its own: spawns {@code sleep 30}, returns from {@code
 * main} while it runs, and in a shutdown hook reports whether the exit watcher stopped blocking in
 * native code, then kills the child and reports whether its exit was still collected.
 */
public final class ShutdownMain {
  private ShutdownMain() {}

  public static void main(String[] args) throws Exception {
    SupervisedProcess child = PosixPlatform.create().spawn(new ProcessBuilder("sleep", "30"));
    System.out.println("spawned " + child.pid());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println(
                      "watcher parks: "
                          + Await.within(
                              Duration.ofMillis(5000),
                              () -> ExitWatcherTest.watcherState() == Thread.State.TIMED_WAITING));
                  child.destroyForcibly();
                  try {
                    boolean exited = child.onExit().get(5, TimeUnit.SECONDS) != null;
                    System.out.println("collected " + exited + " " + child.exitValue());
                  } catch (Exception e) {
                    System.out.println("not collected: " + e);
                  }
                }));
  }
}
