package dev.lifecycle.tether;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeMember;
import dev.lifecycle.tree.TreeOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The supervisor child JVM of {@link TetherTest}: binds two trees to a tether (one whose members
 * all ignore SIGTERM and that has a setsid escapee carrying its cookie, one plain), prints {@code
 * PIDS <sidecar> <pid>...}, then obeys stdin: {@code close} closes the tether orderly and answers
 * {@code CLOSED}; EOF or anything else just waits to be killed.
 *
 * <p>Arguments: {@code <grace-ms>}.
 */
public final class TetheredSupervisorMain {
  private TetheredSupervisorMain() {}

  public static void main(String[] args) throws Exception {
    Tether tether = Tether.builder().grace(Duration.ofMillis(Long.parseLong(args[0]))).start();
    ProcessTree stubborn =
        spawn("trap '' TERM; sleep 300 & setsid sleep 300 & sleep 300 & wait", 4);
    ProcessTree plain = spawn("sleep 300 & sleep 300 & wait", 3);
    tether.bind(stubborn);
    tether.bind(plain);
    List<Long> pids = new ArrayList<>();
    pids.add(tether.sidecar().pid());
    for (ProcessTree tree : List.of(stubborn, plain)) {
      for (TreeMember member : tree.view().all()) {
        pids.add(member.identity().pid());
      }
    }
    System.out.println(
        "PIDS " + pids.stream().map(String::valueOf).collect(Collectors.joining(" ")));
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    while (true) {
      String line = in.readLine();
      if ("close".equals(line)) {
        tether.close();
        System.out.println("CLOSED");
        System.out.flush();
      } else if (line == null) {
        Thread.sleep(Long.MAX_VALUE); // stay alive until the test kills us
      }
    }
  }

  /** Spawns a tree and waits (bounded) until all {@code n} processes exist. */
  private static ProcessTree spawn(String script, int n) throws Exception {
    ProcessTree tree =
        ProcessTree.spawn(
            new ProcessBuilder("sh", "-c", script)
                .redirectInput(Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(Redirect.DISCARD)
                .redirectError(Redirect.INHERIT),
            TreeOptions.defaults());
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (tree.view().all().size() < n) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("tree incomplete: " + tree.view());
      }
      Thread.sleep(10);
    }
    ProcessIdentity leader = tree.leaderIdentity();
    System.err.println("tree " + leader.pid() + " ready");
    return tree;
  }
}
