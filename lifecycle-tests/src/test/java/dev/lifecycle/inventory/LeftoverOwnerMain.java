package dev.lifecycle.inventory;

import dev.lifecycle.process.Containment;
import dev.lifecycle.testing.Await;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeOptions;
import java.io.File;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An owner JVM for {@link LeftoversTest}, meant to be SIGKILLed: spawns trees that outlive it (a
 * stubborn tree whose members ignore SIGTERM, a setsid double-fork daemon, optionally a
 * redis-server, optionally a tree it detaches), prints {@code TREE <id>} per tree ({@code DETACHED
 * <id>} for the detached one; the id is the cgroup's name or the cookie), {@code TETHER <pid>} when
 * its trees are bound to a tether, then {@code READY}, and waits to be killed.
 *
 * <p>Arguments: {@code <session|cgroup|auto> <redis-server path or -> <detach yes|no> <tether
 * yes|no> <dir>}; {@code auto} lets the host decide and prints {@code TIER <tier>} first.
 */
public final class LeftoverOwnerMain {
  static final String STUBBORN = "trap '' TERM; sleep 301 & sleep 301 & wait";
  static final String DAEMON = "( setsid sh -c 'trap \"\" TERM; sleep 302' & ) ; sleep 302 & wait";

  private LeftoverOwnerMain() {}

  public static void main(String[] args) throws Exception {
    Containment.Mode mode =
        switch (args[0]) {
          case "session" -> Containment.Mode.SESSION;
          case "auto" -> Containment.Mode.AUTO;
          default -> Containment.Mode.REQUIRE_CGROUP;
        };
    TreeOptions options = TreeOptions.defaults().withContainment(mode);
    Tether tether = args[3].equals("yes") ? Tether.builder().start() : null;
    List<ProcessTree> trees = new ArrayList<>();
    trees.add(spawn(tether, sh(STUBBORN), options, 3));
    if (mode == Containment.Mode.AUTO) {
      System.out.println("TIER " + trees.get(0).tier());
    }
    trees.add(spawn(tether, sh(DAEMON), options, 3));
    if (!args[1].equals("-")) {
      String daemonize = args[0].equals("session") ? "no" : "yes";
      trees.add(
          spawn(
              tether,
              sh(
                  args[1]
                      + " --port 0 --unixsocket "
                      + args[4]
                      + "/redis.sock --daemonize "
                      + daemonize
                      + " --dir "
                      + args[4]
                      + " --save '' --appendonly no --logfile "
                      + args[4]
                      + "/redis.log"),
              options,
              args[0].equals("session") ? 2 : 1));
    }
    for (ProcessTree tree : trees) {
      System.out.println("TREE " + id(tree));
    }
    if (args[2].equals("yes")) {
      ProcessTree kept = spawn(null, sh("sleep 303 & wait"), options, 2);
      kept.detach();
      System.out.println("DETACHED " + id(kept));
    }
    if (tether != null) {
      System.out.println("TETHER " + tether.sidecar().pid());
    }
    System.out.println("READY");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }

  private static String id(ProcessTree tree) {
    return tree.cgroup().map(p -> p.getFileName().toString()).orElse(tree.cookie());
  }

  private static ProcessTree spawn(Tether tether, ProcessBuilder b, TreeOptions o, int members)
      throws Exception {
    ProcessTree tree = tether != null ? tether.spawn(b, o).tree() : ProcessTree.spawn(b, o);
    Await.until(
        Duration.ofSeconds(30),
        "tree " + tree + " started",
        () -> tree.view().all().size(),
        n -> n >= members);
    return tree;
  }

  private static ProcessBuilder sh(String script) {
    return new ProcessBuilder("sh", "-c", script)
        .redirectInput(Redirect.from(new File("/dev/null")))
        .redirectOutput(Redirect.DISCARD)
        .redirectError(Redirect.DISCARD);
  }
}
