package dev.lifecycle.posix;

import static dev.lifecycle.posix.Children.PLATFORM;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.testing.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Churn: nothing accumulates (fds, threads), and concurrent spawns keep their stdio apart. */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StressTest {
  @RegisterExtension final Children children = new Children();

  @Test
  void aThousandSpawnsLeakNoFdsAndNoThreads() throws Exception {
    cycle(10); // warm-up: JNA, the epoll fd and the watcher thread exist from here on
    long fds = openFds();
    int threads = Thread.activeCount();

    cycle(1_000);

    // Exact: every pipe end and pidfd of a cycle is closed by the time waitFor returns and the
    // streams are closed. Polled briefly only because other tests' pool threads may be winding
    // down.
    assertThat(openFds()).isEqualTo(fds);
    assertThat(Await.within(Duration.ofMillis(2_000), () -> Thread.activeCount() <= threads))
        .isTrue();
  }

  @Test
  void concurrentSpawnsFromEightThreads() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    String token = thread + "-" + i;
                    SupervisedProcess child = children.spawn(new ProcessBuilder("echo", token));
                    assertThat(Children.read(child.getInputStream())).isEqualTo(token + "\n");
                    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
                    assertThat(child.exitValue()).isZero();
                    Children.closeQuietly(child);
                  }
                  return null;
                }));
      }
      for (Future<?> future : done) {
        future.get(50, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static void cycle(int times) throws IOException, InterruptedException {
    for (int i = 0; i < times; i++) {
      SupervisedProcess child = PLATFORM.spawn(new ProcessBuilder("/bin/true"));
      try {
        assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).isZero();
      } finally {
        child.destroyForcibly();
        Children.closeQuietly(child);
      }
    }
  }

  private static long openFds() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }
}
