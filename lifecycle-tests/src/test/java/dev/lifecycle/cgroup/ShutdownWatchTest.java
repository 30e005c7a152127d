package dev.lifecycle.cgroup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.testing.ChildJvm;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cgroup watcher never holds up the JVM's exit: HotSpot's final safepoint waits up to ~300 ms
 * for threads in native code, and the JDK's watch service reads inotify on such a thread. From the
 * start of shutdown the watch service is closed (its thread ends) and waiters are polled, so a
 * shutdown hook that ends a CGROUP tree still sees it empty. Pinned by the thread's state, not by a
 * time.
 */
@NoProcessLeaks
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ShutdownWatchTest {

  @Test
  void atShutdownTheInotifyThreadStopsAndTreesStillEndProvenEmpty() throws Exception {
    Cgroups.writableParentOrSkip();
    Process jvm =
        new ProcessBuilder(ChildJvm.nativeCommand(ShutdownWatchMain.class))
            .redirectErrorStream(true)
            .start();
    String output = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(jvm.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
    assertThat(output)
        .contains(
            "tier CGROUP, watch thread running: true", // the thread exists while main runs
            "watch thread stopped: true",
            "ended at shutdown: true CGROUP KILL");
    assertThat(jvm.exitValue()).as(output).isZero();
  }
}
