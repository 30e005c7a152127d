package dev.lifecycle.cgroup;

import dev.lifecycle.process.Containment;
import dev.lifecycle.tree.ProcessTree;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A JVM whose configured cgroup parent is removed after its first tree: the next tree must go under
 * the parent configured then, not fail under the removed one. Args: the two parent cgroups (created
 * by the test). Prints {@code FIRST <parent>}, {@code SECOND <parent>}, {@code EXIT <n>}.
 */
public final class StaleParentMain {
  private StaleParentMain() {}

  public static void main(String[] args) throws Exception {
    System.setProperty(Containment.PARENT_PROPERTY, args[0]);
    System.out.println("FIRST " + Containment.current().parent().orElseThrow());
    run();
    Files.delete(Path.of(args[0])); // rmdir, as a cgroup the JVM was in at first use can be removed
    System.setProperty(Containment.PARENT_PROPERTY, args[1]);
    System.out.println("SECOND " + Containment.current().parent().orElseThrow());
    run();
  }

  private static void run() throws Exception {
    try (ProcessTree tree = ProcessTree.spawn(new ProcessBuilder("/bin/true"))) {
      System.out.println("EXIT " + tree.leader().waitFor() + " " + tree.tier());
    }
  }
}
