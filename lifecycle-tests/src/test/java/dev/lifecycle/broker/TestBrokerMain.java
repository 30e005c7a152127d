package dev.lifecycle.broker;

import dev.lifecycle.record.RecordStore;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeMember;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The broker of the real-process tests: a JVM serving a Unix domain socket with one backend tree
 * ({@code sh} with two sleeps, one of which ignores SIGTERM). Limits come from the {@code
 * lifecycle.broker.*} system properties. Requests: {@code pid}, {@code backends} (pids of every
 * backend process), {@code slow <ms>} (replies after a delay), {@code shutdown}.
 *
 * <p>Arguments: {@code <storeDir> <name>}; {@code -Dtest.stall=true} never finishes its startup;
 * {@code -Dtest.dieAfterSpawn=true} SIGKILLs itself the moment its backend spawn returned.
 */
public final class TestBrokerMain {
  private TestBrokerMain() {}

  /**
   * sh, a sleep, and a sleep that ignores SIGTERM (an ignored signal stays ignored across exec).
   */
  static ProcessBuilder backend() {
    return new ProcessBuilder("sh", "-c", "sleep 300 & (trap '' TERM; exec sleep 301) & wait");
  }

  public static void main(String[] args) throws Exception {
    RecordStore store = RecordStore.open(Path.of(args[0]));
    List<ProcessTree> trees = new ArrayList<>();
    boolean stall = Boolean.getBoolean("test.stall");
    BrokerRuntime runtime =
        BrokerRuntime.builder()
            .store(store)
            .name(args[1])
            .startup(
                rt -> {
                  ProcessTree tree = rt.spawnBackend(backend()); // bound to the tether already
                  if (Boolean.getBoolean("test.dieAfterSpawn")) { // the moment nothing else sees
                    long self = ProcessHandle.current().pid();
                    new ProcessBuilder("kill", "-KILL", Long.toString(self)).start().waitFor();
                  }
                  trees.add(tree);
                  System.err.println("BACKEND " + pids(trees));
                  if (stall) {
                    new CountDownLatch(1).await(); // the startup bound must end this
                  }
                })
            .handler(request -> handle(request, trees))
            .build();
    runtime.start();
    System.out.println("SERVING " + ProcessHandle.current().pid());
    System.out.flush();
    ShutdownReport report = runtime.awaitStopped();
    System.err.println("REPORT " + report);
    System.exit(0);
  }

  private static CompletableFuture<String> handle(BrokerRequest request, List<ProcessTree> trees) {
    String line = request.line();
    if (line.equals("pid")) {
      return CompletableFuture.completedFuture(Long.toString(ProcessHandle.current().pid()));
    }
    if (line.equals("backends")) {
      return CompletableFuture.completedFuture(pids(trees));
    }
    if (line.startsWith("slow ")) {
      long millis = Long.parseLong(line.substring(5));
      return CompletableFuture.supplyAsync(
          () -> "done", CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS));
    }
    if (line.equals("shutdown")) {
      request.runtime().shutdown();
      return null;
    }
    return CompletableFuture.completedFuture("unknown request");
  }

  private static String pids(List<ProcessTree> trees) {
    return trees.stream()
        .flatMap(tree -> tree.view().all().stream())
        .map(TreeMember::identity)
        .map(id -> Long.toString(id.pid()))
        .collect(Collectors.joining(" "));
  }
}
