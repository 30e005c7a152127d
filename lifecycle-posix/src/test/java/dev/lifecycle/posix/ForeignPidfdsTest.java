package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.testing.Await;
import java.io.File;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Probes of processes that are not our children keep one pidfd per pid (bounded), and a held pidfd
 * never makes an exited process read as alive.
 */
class ForeignPidfdsTest {
  private static final PosixPlatform PLATFORM = Children.PLATFORM;

  @Test
  void repeatedProbesOfAnotherProcessAndItsExit() throws Exception {
    Process other = new ProcessBuilder("sleep", "30").start();
    try {
      for (int i = 0; i < 100; i++) {
        assertThat(PLATFORM.probe(other.pid())).isEqualTo(Liveness.ALIVE);
      }
      assertThat(PLATFORM.heldForeignPidfds()).isPositive();
    } finally {
      other.destroyForcibly();
      assertThat(other.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(PLATFORM.probe(other.pid())).isEqualTo(Liveness.GONE);
  }

  @Test
  void aZombieIsGoneEvenWithAHeldPidfd() throws Exception {
    Process parent =
        new ProcessBuilder("/bin/sh", "-c", "sleep 0.3 & echo $!; exec sleep 30").start();
    try {
      long pid =
          Long.parseLong(
              new java.io.BufferedReader(
                      new java.io.InputStreamReader(
                          parent.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))
                  .readLine()
                  .trim());
      assertThat(PLATFORM.probe(pid)).isEqualTo(Liveness.ALIVE); // pidfd now held
      assertThat(
              Await.within(
                  Duration.ofMillis(5000),
                  () -> PLATFORM.snapshot().get(pid).map(ProcessInfo::hasExited).orElse(true)))
          .isTrue();
      assertThat(PLATFORM.probe(pid)).isEqualTo(Liveness.GONE);
    } finally {
      parent.destroyForcibly();
      assertThat(parent.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void boundedWhateverIsProbed() {
    int before = new File("/proc/self/fd").list().length;
    for (ProcessInfo row : PLATFORM.snapshot().all()) {
      PLATFORM.probe(row.pid());
    }
    assertThat(PLATFORM.heldForeignPidfds()).isLessThanOrEqualTo(ForeignPidfds.CAPACITY);
    assertThat(new File("/proc/self/fd").list().length)
        .isLessThanOrEqualTo(before + ForeignPidfds.CAPACITY);
  }
}
