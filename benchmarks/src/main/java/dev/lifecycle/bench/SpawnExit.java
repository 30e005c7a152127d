package dev.lifecycle.bench;

import dev.lifecycle.tree.ProcessTree;

/**
 * A whole program for {@code WholeProcessHarness}: spawns {@code /bin/true}, waits for it and
 * returns from {@code main}; {@code tree} through {@link ProcessTree} (closing the tree after its
 * leader exited, timed and printed as {@code close_ns=N}), {@code pb} through {@link
 * ProcessBuilder}. Only API that existed before the fast-client changes, so the same class runs
 * against the library before and after them.
 */
public final class SpawnExit {
  private SpawnExit() {}

  public static void main(String[] args) throws Exception {
    ProcessBuilder builder = new ProcessBuilder("/bin/true");
    if (args.length > 0 && args[0].equals("pb")) {
      builder.start().waitFor();
      return;
    }
    ProcessTree tree = ProcessTree.spawn(builder);
    tree.leader().waitFor();
    long start = System.nanoTime();
    tree.close();
    System.out.println("close_ns=" + (System.nanoTime() - start));
  }
}
