package dev.lifecycle.tree;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * The child JVM of {@link SelfTerminationTest}: starts a tree of its own (members that ignore
 * SIGTERM, a setsid escapee, a double-forked setsid daemon), waits for "go" on stdin, then ends its
 * own tree and itself.
 *
 * <p>Arguments: {@code <exitCode> <beforeKill: ok|throw|hang> <shutdownHook: ok|hang>}.
 */
public final class SelfTerminatingMain {
  private SelfTerminatingMain() {}

  public static void main(String[] args) throws Exception {
    int exitCode = Integer.parseInt(args[0]);
    String hook = args[1];
    if (args[2].equals("hang")) {
      Runtime.getRuntime().addShutdownHook(new Thread(SelfTerminatingMain::hang));
    }
    start(Adversaries.trappingTree(3));
    start(new ProcessBuilder("setsid", "sleep", "300"));
    start(Adversaries.sh("( setsid sleep 300 & )"));
    System.out.println("READY");
    System.out.flush();
    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();

    Runnable beforeKill =
        switch (hook) {
          case "throw" ->
              () -> {
                throw new IllegalStateException("beforeKill fails on purpose");
              };
          case "hang" -> SelfTerminatingMain::hang;
          default -> () -> System.err.println("beforeKill ran");
        };
    SelfTermination.builder()
        .grace(Duration.ofMillis(300))
        .exitCode(exitCode)
        .beforeKill(beforeKill, Duration.ofMillis(500))
        .exitTimeout(Duration.ofMillis(500))
        .build()
        .terminateAndExit();
    System.err.println("terminateAndExit returned");
    System.exit(99);
  }

  private static void start(ProcessBuilder builder) throws Exception {
    builder.redirectOutput(Redirect.DISCARD).redirectError(Redirect.INHERIT).start();
  }

  private static void hang() {
    try {
      new CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
