package dev.lifecycle.process.procfs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.testing.Await;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Liveness from /proc alone: the kernel's rules, and real processes. */
class ProcLivenessTest {

  @Test
  void parsesTheStatusLinesItNeeds() {
    String status =
        "Name:\tsleep\nState:\tZ (zombie)\nTgid:\t42\nUid:\t1000\t0\t1001\t0\n"
            + "Gid:\t1000\t1000\t1000\t1000\nNSpid:\t4242\t42\nThreads:\t3\n"
            + "CapEff:\t0000000000000020\n";
    ProcLiveness.Status parsed = ProcLiveness.parseStatus(status).orElseThrow();
    assertThat(parsed.uids()).containsExactly(1000, 0, 1001);
    assertThat(parsed.threads()).isEqualTo(3);
    assertThat(parsed.capEff() & (1L << 5)).isNotZero(); // CAP_KILL
    assertThat(parsed.pidNamespaces()).isEqualTo(2); // seen from the parent namespace's procfs
    assertThat(ProcLiveness.parseStatus("Uid:\t0\t0\t0\t0\n").orElseThrow().pidNamespaces())
        .isZero(); // a kernel without NSpid
    assertThat(ProcLiveness.parseStatus("Name:\tx\n")).isEmpty();
  }

  @Test
  void theKernelsCredentialRuleForSignals() {
    long[] user = {1000, 1000, 1000};
    assertThat(ProcLiveness.mayKill(user, new long[] {1000, 1000, 1000})).isTrue();
    assertThat(ProcLiveness.mayKill(user, new long[] {0, 0, 0})).isFalse();
    // a setuid program started by the user: real uid still the user's
    assertThat(ProcLiveness.mayKill(user, new long[] {1000, 0, 0})).isTrue();
    // the target's effective uid does not count, its saved uid does
    assertThat(ProcLiveness.mayKill(user, new long[] {0, 1000, 0})).isFalse();
    assertThat(ProcLiveness.mayKill(user, new long[] {0, 0, 1000})).isTrue();
    // the sender's real uid counts as well as its effective one
    assertThat(ProcLiveness.mayKill(new long[] {1000, 0, 0}, new long[] {1000, 5, 5})).isTrue();
  }

  @Test
  void hidepidMakesProcUnfitForLiveness() {
    String plain = "22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:5 - proc proc rw";
    String hidden = "22 1 0:21 / /proc rw,nosuid shared:5 - proc proc rw,hidepid=invisible";
    String off = "22 1 0:21 / /proc rw,nosuid - proc proc rw,hidepid=0";
    String other = "30 22 0:40 / /proc/sys/fs/binfmt_misc rw - binfmt_misc x rw,hidepid=2";
    assertThat(ProcLiveness.hidesProcesses(List.of(plain, other))).isFalse();
    assertThat(ProcLiveness.hidesProcesses(List.of(off))).isFalse();
    assertThat(ProcLiveness.hidesProcesses(List.of(plain, hidden))).isTrue();
  }

  @Test
  void realProcessesAZombieAndAGonePid() throws Exception {
    assertThat(ProcLiveness.isExact()).isTrue();
    assertThat(ProcLiveness.probe(ProcessHandle.current().pid())).isEqualTo(Liveness.ALIVE);
    assertThat(ProcLiveness.probe(Integer.MAX_VALUE)).isEqualTo(Liveness.GONE);
    // the background sleep exits and stays a zombie: its parent (exec'ed sleep) never reaps it
    Process parent =
        new ProcessBuilder("/bin/sh", "-c", "sleep 0.05 & echo $!; exec sleep 30").start();
    try {
      long zombie =
          Long.parseLong(
              new BufferedReader(
                      new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8))
                  .readLine()
                  .trim());
      Await.until(
          Duration.ofSeconds(5),
          "background sleep exited",
          () -> ProcFs.stat(zombie).map(ProcessInfo::hasExited).orElse(true));
      assertThat(ProcFs.stat(zombie).map(ProcessInfo::hasExited)).contains(true);
      assertThat(ProcLiveness.probe(zombie)).isEqualTo(Liveness.GONE);
      assertThat(ProcLiveness.probe(ProcessIdentity.ofPid(zombie))).isEqualTo(Liveness.GONE);
      ProcessIdentity alive = ProcFs.identity(parent.pid()).orElseThrow();
      assertThat(ProcLiveness.probe(alive)).isEqualTo(Liveness.ALIVE);
      ProcessIdentity reused =
          new ProcessIdentity(alive.pid(), alive.startTime() + 1, alive.bootId());
      assertThat(ProcLiveness.probe(reused)).isEqualTo(Liveness.ALIVE_NOT_OURS);
    } finally {
      parent.destroyForcibly();
      assertThat(parent.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
