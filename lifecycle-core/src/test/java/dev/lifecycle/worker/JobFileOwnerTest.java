package dev.lifecycle.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.testing.ForwardingPlatform;
import dev.lifecycle.time.Limit;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Only proof counts as "the owner is gone": the verdict on recorded owners of job files. */
class JobFileOwnerTest {
  private final ProcessPlatform real = ProcessPlatform.get();

  @TempDir Path tmp;

  private JobRecord running(ProcessIdentity owner) {
    return new JobRecord(
        "job", WorkerStatus.RUNNING, owner, Instant.now(), null, Limit.disabled(), "");
  }

  @Test
  void anOwnerWhoseIdentityCannotBeReadIsNotGone() throws Exception {
    // What /proc mounted with hidepid looks like from a non-root reader: kill(pid, 0) says EPERM
    // and no identity can be read. Only this seam is simulated; everything else is the real
    // platform, and the pid is a real live process.
    Process child = new ProcessBuilder("sleep", "60").start();
    try {
      ProcessIdentity owner = real.identify(child.pid()).orElseThrow();
      Path file = tmp.resolve("job");
      JobFile.write(file, running(owner));

      JobFile.JobState state = JobFile.inspect(file, new Hidepid(real));

      assertThat(Liveness.judge(new Hidepid(real), owner))
          .isEqualTo(Liveness.Verdict.ALIVE_NOT_PERMITTED);
      assertThat(state.owner()).isEqualTo(Liveness.ALIVE_NOT_OURS); // not GONE: no proof
      assertThat(state.isAbandoned()).isFalse();
    } finally {
      child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aReusedPidProvesTheRecordedOwnerGone() throws Exception {
    Process child = new ProcessBuilder("sleep", "60").start();
    try {
      ProcessIdentity now = real.identify(child.pid()).orElseThrow();
      ProcessIdentity earlier =
          new ProcessIdentity(now.pid(), Math.max(0, now.startTime() - 1), now.bootId());
      Path file = tmp.resolve("job");
      JobFile.write(file, running(earlier));

      assertThat(Liveness.judge(real, earlier)).isEqualTo(Liveness.Verdict.PID_REUSED);
      assertThat(Liveness.judge(real, earlier).isProvenGone()).isTrue();
      assertThat(JobFile.inspect(file, real).isAbandoned()).isTrue();
      assertThat(Liveness.judge(real, now)).isEqualTo(Liveness.Verdict.ALIVE);
    } finally {
      child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void anExitedOwnerIsGone() throws Exception {
    Process child = new ProcessBuilder("true").start();
    ProcessIdentity owner = real.identify(child.pid()).orElse(ProcessIdentity.ofPid(child.pid()));
    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(Liveness.judge(real, owner)).isEqualTo(Liveness.Verdict.GONE);
  }

  @Test
  void aWriteKilledMidwayLeavesNothingOnceInspected() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    assertThat(gone.waitFor(10, TimeUnit.SECONDS)).isTrue();
    Path file = tmp.resolve("job");
    Path dead =
        java.nio.file.Files.writeString(tmp.resolve(".job." + gone.pid() + ".7.tmp"), "half");
    Path live =
        java.nio.file.Files.writeString(
            tmp.resolve(".job." + ProcessHandle.current().pid() + ".8.tmp"), "in flight");

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> JobFile.inspect(file, real))
        .isInstanceOf(java.nio.file.NoSuchFileException.class);

    assertThat(dead).doesNotExist(); // its writer is proven gone
    assertThat(live).exists(); // this JVM's own write may still be under way
  }

  /** The real platform, except that identities cannot be read and probes answer EPERM. */
  private static final class Hidepid extends ForwardingPlatform {
    Hidepid(ProcessPlatform real) {
      super(real);
    }

    @Override
    public Optional<ProcessIdentity> identify(long pid) {
      return Optional.empty();
    }

    @Override
    public Liveness probe(long pid) {
      Liveness liveness = real.probe(pid);
      return liveness == Liveness.GONE ? liveness : Liveness.ALIVE_NOT_OURS;
    }

    @Override
    public Liveness probe(ProcessIdentity identity) {
      return probe(identity.pid()); // hidden: no identity to compare with
    }
  }
}
