package dev.lifecycle.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.procfs.ProcFs;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link ProcessPlatform#get()} answers reads from {@code /proc} without choosing (loading) a
 * platform, and loads one only for what needs it. Core has no provider on its test class path, so
 * the loaded platform is the pure-JDK fallback.
 */
class LazyPlatformTest {

  @Test
  void readsDoNotLoadThePlatform() throws Exception {
    LazyPlatform lazy = new LazyPlatform();
    Process child = new ProcessBuilder("sleep", "30").start();
    try {
      long pid = child.pid();
      assertThat(lazy.self().pid()).isEqualTo(ProcessHandle.current().pid());
      assertThat(lazy.self().isComplete()).isTrue();
      assertThat(lazy.probe(pid)).isEqualTo(Liveness.ALIVE);
      ProcessIdentity identity = lazy.identify(pid).orElseThrow();
      assertThat(identity).isEqualTo(ProcFs.identity(pid).orElseThrow());
      assertThat(lazy.probe(identity)).isEqualTo(Liveness.ALIVE);
      assertThat(lazy.snapshot().get(pid)).isPresent();
      assertThat(lazy.commandLine(pid)).contains(List.of("sleep", "30"));
      assertThat(lazy.selfProcessGroup()).isPositive();
      assertThat(lazy.findByEnvironment("LIFECYCLE_NO_SUCH_VARIABLE", "x")).isEmpty();
      assertThat(lazy.identityClock()).isEqualTo(ProcFs.CLOCK);
      assertThat(lazy.isLoaded()).isFalse();
    } finally {
      child.destroyForcibly();
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(lazy.probe(child.pid())).isEqualTo(Liveness.GONE);
    assertThat(lazy.isLoaded()).isFalse();
  }

  @Test
  void capabilitiesAndSpawnsLoadItAndThenEverythingGoesThere() throws Exception {
    LazyPlatform lazy = new LazyPlatform();
    assertThat(lazy.capabilities().platform()).isEqualTo("jdk");
    assertThat(lazy.isLoaded()).isTrue();
    assertThat(lazy.identityClock()).isEqualTo(ProcessPlatform.jdk().identityClock());
    assertThat(lazy.self()).isEqualTo(ProcessPlatform.jdk().self());

    LazyPlatform other = new LazyPlatform();
    SupervisedProcess child = other.spawn(new ProcessBuilder("true"));
    assertThat(other.isLoaded()).isTrue();
    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void theSharedInstanceIsLazy() {
    assertThat(ProcessPlatform.get()).isInstanceOf(LazyPlatform.class);
  }
}
