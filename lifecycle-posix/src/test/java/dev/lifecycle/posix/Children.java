package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts children for a test and ends every one of them afterwards (registered with
 * {@code @RegisterExtension}, it closes after each test): SIGKILL to the group while the leader is
 * still pinned (unreaped), SIGKILL to the leader, a bounded wait, then reap.
 */
final class Children implements AutoCloseable, AfterEachCallback {
  /**
   * A child whose own child exited and stays a zombie: the parent (an exec'ed sleep) never reaps.
   */
  record Zombie(SupervisedProcess parent, long pid) {}

  static final PosixPlatform PLATFORM = PosixPlatform.create();

  private final List<SupervisedProcess> started = new ArrayList<>();

  SupervisedProcess spawn(ProcessBuilder builder) throws IOException {
    return spawn(builder, SpawnOptions.defaults());
  }

  synchronized SupervisedProcess spawn(ProcessBuilder builder, SpawnOptions options)
      throws IOException {
    SupervisedProcess child = PLATFORM.spawn(builder, options);
    started.add(child);
    return child;
  }

  /** Spawns {@code builder} with its leader left unreaped: a zombie once it exits. */
  SupervisedProcess spawnUnreaped(ProcessBuilder builder) throws IOException {
    return spawn(builder, SpawnOptions.defaults().withKeepLeaderUnreaped(true));
  }

  SupervisedProcess sh(String script) throws IOException {
    return spawn(new ProcessBuilder("/bin/sh", "-c", script));
  }

  /** Starts a {@link Zombie} and waits (bounded) until its child has exited. */
  Zombie zombieGrandchild() throws IOException, InterruptedException {
    SupervisedProcess parent = sh("sleep 0.05 & exec sleep 30");
    long[] zombie = {0};
    assertThat(
            Await.within(
                Duration.ofMillis(5000),
                () -> {
                  PLATFORM.snapshot().children(parent.pid()).stream()
                      .filter(ProcessInfo::hasExited)
                      .forEach(row -> zombie[0] = row.pid());
                  return zombie[0] > 0;
                }))
        .as("a zombie child of %s", parent)
        .isTrue();
    return new Zombie(parent, zombie[0]);
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    close();
  }

  @Override
  public synchronized void close() throws InterruptedException {
    for (SupervisedProcess child : started) {
      if (child.isSessionLeader() && !((PosixProcess) child).isReaped()) { // pgid still pinned
        PLATFORM.signalGroup(child.processGroupId(), Signal.KILL);
      }
      child.destroyForcibly();
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).as("%s ended", child).isTrue();
      child.reap();
      closeQuietly(child);
    }
    started.clear();
  }

  static void closeQuietly(Process child) {
    try {
      child.getOutputStream().close();
    } catch (IOException ignored) {
      // already closed
    }
    try {
      child.getInputStream().close();
      child.getErrorStream().close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  static String read(InputStream in) throws IOException {
    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
  }
}
