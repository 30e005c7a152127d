package dev.lifecycle.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.ChildJvm;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The record lock excludes another JVM, not just another thread: a predecessor paused between its
 * read and its delete holds the lock, a successor in a child JVM blocks in publish, and its record
 * survives the predecessor's compare-and-clear.
 */
@NoProcessLeaks
class CrossProcessLockTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private final ExecutorService pool = Executors.newCachedThreadPool();
  private Process child;

  @TempDir Path tmp;

  @AfterEach
  void cleanUp() throws InterruptedException {
    if (child != null) {
      child.destroyForcibly();
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void successorInAnotherJvmWaitsForThePredecessorsLockAndSurvives() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "watches the child's open files");
    ProcessPlatform platform = ProcessPlatform.get();
    CountDownLatch read = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    RecordStore store = RecordStore.open(tmp.resolve("records"), platform);
    RecordStore paused =
        store.withTestHooks(
            new RecordStore.TestHooks(
                name -> {
                  read.countDown();
                  try {
                    resume.await(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                true));
    SessionRecord predecessor =
        SessionRecord.newGeneration(platform, Endpoint.tcp("127.0.0.1", 1), Map.of());
    store.publish("broker", predecessor);

    Future<Boolean> clear =
        pool.submit(() -> paused.compareAndClear("broker", predecessor.token()));
    assertThat(read.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    child =
        new ProcessBuilder(
                ChildJvm.command(
                    PublishSuccessor.class,
                    List.of(),
                    List.of(store.directory().toString(), "broker")))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    String successorToken = out.readLine().substring("token ".length());

    waitUntilOpen(child.pid(), store.lockFile("broker")); // the child is at the lock
    assertThat(child.isAlive()).isTrue();
    assertThat(Files.readString(store.recordFile("broker"))).contains(predecessor.token());

    resume.countDown();
    assertThat(clear.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(out.readLine()).isEqualTo("published");
    assertThat(child.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).isZero();
    assertThat(Files.readString(store.recordFile("broker"))).contains(successorToken);
  }

  /** Polls the child's descriptor table until it holds {@code file} open, within the deadline. */
  private static void waitUntilOpen(long pid, Path file) {
    Await.until(DEADLINE, "child opened " + file, () -> holdsOpen(pid, file));
  }

  private static boolean holdsOpen(long pid, Path file) {
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return fds.anyMatch(
          fd -> {
            try {
              return Files.readSymbolicLink(fd).equals(file);
            } catch (IOException e) {
              return false; // closed while we looked
            }
          });
    } catch (IOException e) {
      return false;
    }
  }
}
