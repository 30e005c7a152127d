package kitdemo;

import static dev.lifecycle.testkit.LifecycleAssertions.assertThat;

import dev.lifecycle.testkit.FixtureChild;
import dev.lifecycle.testkit.FixtureScript;
import dev.lifecycle.testkit.LifecycleAssertions;
import dev.lifecycle.tree.ProcessTree;
import java.time.Duration;

/** The kit's fixture (a script resource inside the kit's module) and assertions, on a tree. */
public final class Main {
  public static void main(String[] args) throws Exception {
    System.out.println("kit module: " + FixtureChild.class.getModule().getName());
    FixtureChild fixture = FixtureChild.of(FixtureScript.create().print("hello").exit(7));
    try (ProcessTree tree = ProcessTree.spawn(fixture.processBuilder())) {
      System.out.println("fixture said: " + FixtureChild.awaitLine(tree.leader(), "hello", Duration.ofSeconds(20)));
      assertThat(tree.leader()).exitsWithin(Duration.ofSeconds(20)).withExitCode(7);
      LifecycleAssertions.treeIsEmpty(fixture.tree(), Duration.ofSeconds(10));
      System.out.println("kit: ok");
    }
  }
}
