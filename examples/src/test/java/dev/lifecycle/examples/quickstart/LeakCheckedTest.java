package dev.lifecycle.examples.quickstart;

import static dev.lifecycle.testkit.LifecycleAssertions.assertThat;
import static dev.lifecycle.testkit.LifecycleAssertions.assertThatTree;

import dev.lifecycle.testkit.NoProcessLeaks;
import java.time.Duration;
import org.junit.jupiter.api.Test;

@NoProcessLeaks // fails a test that leaves a process running, says which, and kills it
class LeakCheckedTest {
  @Test
  void theServerIdlesAndEnds() throws Exception {
    Process server = new ProcessBuilder("sleep", "30").start();
    assertThatTree(server.pid()).doesNotSpin(Duration.ofMillis(500), 0.2); // sampled while alive
    server.destroy();
    assertThat(server).exitsWithin(Duration.ofSeconds(5));
  }
}
