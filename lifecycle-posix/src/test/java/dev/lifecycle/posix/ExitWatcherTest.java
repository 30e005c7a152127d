package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.ChildJvm;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The pidfd exit watcher never holds up the JVM's exit: HotSpot's final safepoint waits for threads
 * that are in native code, so the watcher is in native ({@code epoll_wait}, reported as RUNNABLE)
 * only while it has children to watch, waits on a Java monitor otherwise, and from the start of
 * shutdown parks in Java between polls while still collecting exits.
 */
class ExitWatcherTest {
  @RegisterExtension final Children children = new Children();

  @Test
  void inNativeCodeOnlyWhileSomethingIsWatched() throws Exception {
    SupervisedProcess sleeper = children.spawn(new ProcessBuilder("sleep", "30"));
    assertThat(Await.within(Duration.ofMillis(5000), () -> watcherState() == Thread.State.RUNNABLE))
        .isTrue();
    sleeper.destroyForcibly();
    assertThat(sleeper.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(Await.within(Duration.ofMillis(5000), () -> watcherState() == Thread.State.WAITING))
        .as("watcher state %s", watcherState())
        .isTrue();
  }

  @Test
  void atShutdownItParksAndStillCollectsExits() throws Exception {
    SupervisedProcess jvm =
        children.spawn(
            new ProcessBuilder(ChildJvm.nativeCommand(ShutdownMain.class))
                .redirectErrorStream(true));
    String output = Children.read(jvm.getInputStream());
    assertThat(jvm.waitFor(30, TimeUnit.SECONDS)).as(output).isTrue();
    assertThat(output).contains("watcher parks: true", "collected true 137");
    assertThat(jvm.exitValue()).as(output).isZero();
  }

  /** The state of the exit watcher thread, or null before it started. */
  static Thread.State watcherState() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("lifecycle-exit-watcher"))
        .map(Thread::getState)
        .findFirst()
        .orElse(null);
  }
}
