package dev.lifecycle.bench;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.tree.ProcessTree;

/**
 * A whole program for {@code WholeProcessHarness}: spawns {@code /bin/true}, waits for it and
 * returns from {@code main}; {@code tree} through {@link ProcessTree} (closing the tree after its
 * leader exited, timed and printed as {@code close_ns=N}), {@code pb} through {@link
 * ProcessBuilder}; {@code pb-leave} and {@code platform-leave} return while a child they started
 * still runs; {@code platform} only starts the platform (native code included) and spawns nothing,
 * the floor of any first spawn through it. Every mode prints {@code end_ns=} (monotonic clock) as
 * {@code main} returns. Only API that existed before the fast-client changes, so the same class
 * runs against the library before and after them.
 */
public final class SpawnExit {
  private SpawnExit() {}

  public static void main(String[] args) throws Exception {
    String mode = HarnessArgs.arg(args, 0, "tree");
    ProcessBuilder builder = new ProcessBuilder("/bin/true");
    switch (mode) {
      case "pb" -> builder.start().waitFor();
      case "tree" -> {
        ProcessTree tree = ProcessTree.spawn(builder);
        tree.leader().waitFor();
        long start = System.nanoTime();
        tree.close();
        System.out.println("close_ns=" + (System.nanoTime() - start));
      }
      // leave a child running (the harness kills it): does the JVM's exit wait for its watcher?
      case "pb-leave" ->
          System.out.println("left=" + new ProcessBuilder("sleep", "30").start().pid());
      case "platform" -> System.out.println(ProcessPlatform.get().capabilities().platform());
      case "platform-leave" ->
          System.out.println(
              "left=" + ProcessPlatform.get().spawn(new ProcessBuilder("sleep", "30")).pid());
      default -> throw new IllegalArgumentException(mode);
    }
    // System.nanoTime is CLOCK_MONOTONIC, the same clock in every process: the harness subtracts
    // this from the moment waitFor() returned to get the time the JVM took to exit.
    System.out.println("end_ns=" + System.nanoTime());
  }
}
