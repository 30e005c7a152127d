package dev.lifecycle.posix;

import dev.lifecycle.tree.ProcessTree;

/**
 * Run by {@link LazyLoadingTest} with class loading logged: a short-lived program's whole use of a
 * tree (spawn {@code /bin/true}, wait, terminate), printing the report's verdict (the one both
 * tiers can give); a marker line ({@link #TERMINATING}) separates what the termination loads from
 * what came before it.
 */
public final class TreeLifeMain {
  static final String TERMINATING = "=== terminating the exited tree";

  private TreeLifeMain() {}

  public static void main(String[] args) throws Exception {
    ProcessTree tree = ProcessTree.spawn(new ProcessBuilder("/bin/true"));
    System.out.println("exit " + tree.leader().waitFor());
    System.out.println(TERMINATING);
    System.out.println("no survivor seen " + tree.terminate().noSurvivorSeen());
  }
}
