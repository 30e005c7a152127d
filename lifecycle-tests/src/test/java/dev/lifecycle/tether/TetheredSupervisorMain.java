package dev.lifecycle.tether;

import dev.lifecycle.process.Containment;
import dev.lifecycle.testing.Await;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeMember;
import dev.lifecycle.tree.TreeOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
 * <p>Arguments: {@code <grace-ms> [session|cgroup|bound]}: trees in the SESSION tier, in the CGROUP
 * tier (the default where available), or spawned already bound ({@link Tether#spawn}). A second
 * line {@code CGROUPS <dir>...} names the trees' cgroups.
 */
public final class TetheredSupervisorMain {
  private TetheredSupervisorMain() {}

  public static void main(String[] args) throws Exception {
    Tether tether = Tether.builder().grace(Duration.ofMillis(Long.parseLong(args[0]))).start();
    String mode = args.length > 1 ? args[1] : "session";
    TreeOptions options =
        mode.equals("session")
            ? TreeOptions.defaults().withContainment(Containment.Mode.SESSION)
            : TreeOptions.defaults();
    String stubbornScript = "trap '' TERM; sleep 300 & setsid sleep 300 & sleep 300 & wait";
    String plainScript = "sleep 300 & sleep 300 & wait";
    List<ProcessTree> trees = new ArrayList<>();
    if (mode.equals("bound")) {
      trees.add(await(tether.spawn(builder(stubbornScript), options).tree(), 4));
      trees.add(await(tether.spawn(builder(plainScript), options).tree(), 3));
    } else {
      trees.add(await(ProcessTree.spawn(builder(stubbornScript), options), 4));
      trees.add(await(ProcessTree.spawn(builder(plainScript), options), 3));
      trees.forEach(tether::bind);
    }
    List<Long> pids = new ArrayList<>();
    pids.add(tether.sidecar().pid());
    for (ProcessTree tree : trees) {
      for (TreeMember member : tree.view().all()) {
        pids.add(member.identity().pid());
      }
    }
    System.out.println(
        "PIDS " + pids.stream().map(String::valueOf).collect(Collectors.joining(" ")));
    System.out.println(
        "CGROUPS "
            + trees.stream()
                .flatMap(t -> t.cgroup().stream())
                .map(Path::toString)
                .collect(Collectors.joining(" ")));
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

  private static ProcessBuilder builder(String script) {
    return new ProcessBuilder("sh", "-c", script)
        .redirectInput(Redirect.from(new java.io.File("/dev/null")))
        .redirectOutput(Redirect.DISCARD)
        .redirectError(Redirect.INHERIT);
  }

  /** Waits (bounded) until all {@code n} processes of the tree exist. */
  private static ProcessTree await(ProcessTree tree, int n) throws Exception {
    Await.until(
        Duration.ofSeconds(10), "tree complete", tree::view, view -> view.all().size() >= n);
    System.err.println("tree " + tree.leaderIdentity().pid() + " ready");
    return tree;
  }
}
