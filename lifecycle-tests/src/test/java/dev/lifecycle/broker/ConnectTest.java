package dev.lifecycle.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.testkit.NoProcessLeaks;
import dev.lifecycle.time.Limit;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeMember;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link Connect#withBackend}: a failed connect reclaims the backend tree, bounded. */
@NoProcessLeaks
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ConnectTest {
  @TempDir Path temp;
  private Reaper reaper;
  private final List<ProcessIdentity> members = new ArrayList<>();

  @BeforeEach
  void setUp() {
    reaper = new Reaper(temp);
  }

  @AfterEach
  void killEverythingStarted() {
    reaper.killAll();
  }

  private ProcessTree spawnBackend() throws IOException {
    ProcessBuilder builder = TestBrokerMain.backend();
    builder.environment().put(BrokerClient.DIRECTORY_VARIABLE, temp.toString());
    ProcessTree tree = reaper.track(ProcessTree.spawn(builder));
    Reaper.until(
        java.time.Duration.ofSeconds(5), "backend tree up", () -> tree.view().all().size() >= 3);
    tree.view().all().stream().map(TreeMember::identity).forEach(members::add);
    return tree;
  }

  /** Connects to a freshly spawned backend with a 1 s cleanup bound; returns what it threw. */
  private Throwable failedConnect(Connect.Connector<String> connect, Limit connectTimeout) {
    return catchThrowable(
        () -> Connect.withBackend(this::spawnBackend, connect, connectTimeout, Limit.ofSeconds(1)));
  }

  @Test
  void aConnectFailureAfterSpawnReclaimsTheTreeAndThrowsTheOriginalError() {
    IOException original = new IOException("initialize failed");
    long started = System.nanoTime();

    Throwable thrown =
        failedConnect(
            backend -> {
              throw original;
            },
            Limit.disabled());

    long tookMillis = (System.nanoTime() - started) / 1_000_000;
    assertThat(thrown).isSameAs(original);
    assertThat(thrown.getSuppressed()).isEmpty();
    assertThat(members).hasSizeGreaterThanOrEqualTo(3).allMatch(Reaper::isGone);
    assertThat(tookMillis).isLessThan(2500); // 0.5 s grace, then SIGKILL for the TERM-ignorer
  }

  @Test
  void aHangingConnectIsBoundedAndReclaimsTheTree() {
    Throwable thrown =
        failedConnect(
            backend -> {
              new CountDownLatch(1).await();
              return "never";
            },
            Limit.ofMillis(300));

    assertThat(thrown).isInstanceOf(TimeoutException.class).hasMessageContaining("connect");
    assertThat(members).allMatch(Reaper::isGone);
  }

  @Test
  void aSpawnFailureIsThrownAtOnceWithNothingToWaitFor() {
    IOException original = new IOException("no such program");
    AtomicBoolean connected = new AtomicBoolean();
    long started = System.nanoTime();

    Throwable thrown =
        catchThrowable(
            () ->
                Connect.withBackend(
                    () -> {
                      throw original;
                    },
                    backend -> connected.getAndSet(true),
                    Limit.ofSeconds(5),
                    Limit.ofSeconds(5)));

    assertThat(thrown).isSameAs(original);
    assertThat(connected).isFalse();
    assertThat(System.nanoTime() - started).isLessThan(TimeUnit.SECONDS.toNanos(1));
  }

  @Test
  void aSuccessfulConnectLeavesTheBackendToTheCaller() throws Exception {
    ProcessTree backend = Connect.withBackend(this::spawnBackend, tree -> tree, Limit.ofSeconds(1));
    assertThat(members).noneMatch(Reaper::isGone);
    backend.terminate(java.time.Duration.ZERO);
  }
}
