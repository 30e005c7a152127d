package dev.lifecycle.cgroup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.OwnedCgroups;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The containment decision is kept for the JVM, but not past its parent cgroup: once that is
 * removed, the next tree is placed by the configuration as it is then (in a JVM of its own, since
 * the decision is JVM-wide).
 */
@NoProcessLeaks
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StaleParentTest {
  @Test
  void aRemovedParentIsDecidedAgainInsteadOfFailingEverySpawn() throws Exception {
    Cgroup parent = Cgroups.writableParentOrSkip();
    long self = ProcessHandle.current().pid();
    long start = ProcessPlatform.get().self().startTime();
    Cgroup first = parent.createChild(OwnedCgroups.newName(self, start));
    Cgroup second = parent.createChild(OwnedCgroups.newName(self, start));
    Process child = null;
    try {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      child =
          new ProcessBuilder(
                  java,
                  "-XX:TieredStopAtLevel=1",
                  "-cp",
                  System.getProperty("java.class.path"),
                  StaleParentMain.class.getName(),
                  first.path().toString(),
                  second.path().toString())
              .redirectError(Redirect.INHERIT)
              .start();
      String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      List<String> lines = out.lines().toList();
      assertThat(lines)
          .as(out)
          .containsExactly(
              "FIRST " + first.path(), "EXIT 0 CGROUP", "SECOND " + second.path(), "EXIT 0 CGROUP");
      assertThat(child.exitValue()).isZero();
      assertThat(second.children()).as("the second tree's cgroup was removed").isEmpty();
    } finally {
      if (child != null) {
        child.destroyForcibly();
        child.waitFor(10, TimeUnit.SECONDS);
      }
      removeIfThere(first);
      removeIfThere(second);
    }
  }

  private static void removeIfThere(Cgroup cgroup) throws IOException {
    for (Cgroup sub : cgroup.exists() ? cgroup.children() : List.<Cgroup>of()) {
      sub.remove();
    }
    if (Files.isDirectory(cgroup.path())) {
      cgroup.remove();
    }
  }
}
