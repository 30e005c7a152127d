package dev.lifecycle.posix;

import dev.lifecycle.tree.ProcessTree;

/**
 * Run by {@link LazyLoadingTest} with class loading logged: a short-lived program's whole use of a
 * tree (spawn {@code /bin/true}, wait, terminate), printing the report's verdict (the one both
 * tiers can give); a marker line ({@link #TERMINATING}) separates what the termination loads from
 * what came before it. A second tree, started after the first one's leader and still running while
 * the first one closes, makes that close take its longest path every time: a process younger than
 * the leader may carry its cookie, so its environment is read (on a busy machine any process
 * started meanwhile does that). The second tree is then killed by its leader's pid alone: a second
 * close would scan the machine again, and a stranger's unreadable environment there makes a
 * warning, which starts a logger. With {@code -Dtree.leader=lingering} the leader leaves a child
 * running, so the close takes the long path too (TERM, grace, KILL, verification, sweep).
 */
public final class TreeLifeMain {
  static final String TERMINATING = "=== terminating the exited tree";

  private TreeLifeMain() {}

  public static void main(String[] args) throws Exception {
    boolean lingering = "lingering".equals(System.getProperty("tree.leader"));
    ProcessTree tree =
        ProcessTree.spawn(
            lingering
                ? new ProcessBuilder("sh", "-c", "sleep 60 & exit 0")
                : new ProcessBuilder("/bin/true"));
    System.out.println("exit " + tree.leader().waitFor());
    ProcessTree younger = ProcessTree.spawn(new ProcessBuilder("sleep", "60"));
    try {
      System.out.println(TERMINATING);
      System.out.println("no survivor seen " + tree.terminate().noSurvivorSeen());
    } finally {
      // Killed, not closed: a close would scan and could warn about strangers.
      younger.leader().destroyForcibly();
      System.out.println("younger exit " + younger.leader().waitFor());
    }
  }
}
