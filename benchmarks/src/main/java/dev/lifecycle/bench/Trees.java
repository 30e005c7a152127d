package dev.lifecycle.bench;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
import java.io.File;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.List;

/**
 * Process trees for the benchmarks: a {@code sh} leader in a session of its own, ten sub-shells
 * each running {@code sleep 600}s, and some sleeps of the leader itself, so that the tree has
 * exactly the requested number of processes at two levels. Optionally every member ignores SIGTERM
 * (an ignored disposition is inherited across fork and exec), so a termination has to wait out its
 * grace and escalate.
 *
 * <p>Membership is counted from {@code /proc} by session; zombies (state Z) count as gone, because
 * PID 1 here reaps orphans only every ~2 s.
 */
final class Trees {
  static final int BRANCHES = 10;

  private Trees() {}

  /** A builder for a tree of exactly {@code total} processes (leader included), {@code >= 12}. */
  static ProcessBuilder builder(int total, boolean ignoreTerm) {
    if (total < BRANCHES + 2) {
      throw new IllegalArgumentException("total too small: " + total);
    }
    int rest = total - 1 - BRANCHES;
    int perBranch = rest / BRANCHES;
    int direct = rest - perBranch * BRANCHES;
    String script =
        (ignoreTerm ? "trap '' TERM\n" : "")
            + "i=0; while [ $i -lt $1 ]; do\n"
            + "  sh -c 'j=0; while [ $j -lt $1 ]; do sleep 600 & j=$((j+1)); done; wait' branch $2 &\n"
            + "  i=$((i+1))\n"
            + "done\n"
            + "k=0; while [ $k -lt $3 ]; do sleep 600 & k=$((k+1)); done\n"
            + "wait\n";
    ProcessBuilder builder =
        new ProcessBuilder(
            "/bin/sh",
            "-c",
            script,
            "tree",
            Integer.toString(BRANCHES),
            Integer.toString(perBranch),
            Integer.toString(direct));
    builder.redirectInput(Redirect.from(new File("/dev/null")));
    builder.redirectOutput(Redirect.DISCARD);
    builder.redirectError(Redirect.INHERIT);
    return builder;
  }

  /** A builder for one {@code sleep 600} with its stdio on {@code /dev/null}. */
  static ProcessBuilder quietSleep() {
    ProcessBuilder builder = new ProcessBuilder("sleep", "600");
    builder.redirectInput(Redirect.from(new File("/dev/null")));
    return builder.redirectOutput(Redirect.DISCARD).redirectError(Redirect.DISCARD);
  }

  /** Members of session {@code sid} that are not zombies. */
  static int liveInSession(long sid) {
    int live = 0;
    for (ProcessInfo row : ProcFs.snapshot().all()) {
      if (row.sid() == sid && !row.state().hasExited()) {
        live++;
      }
    }
    return live;
  }

  /** Waits until session {@code sid} has {@code count} live members. */
  static void awaitSize(long sid, int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int live;
    while ((live = liveInSession(sid)) < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "session " + sid + " reached only " + live + " of " + count + " processes");
      }
      Thread.sleep(20);
    }
  }

  /** The live members of session {@code sid}, from one {@code /proc} snapshot. */
  static List<ProcessInfo> members(long sid) {
    return ProcFs.snapshot().all().stream()
        .filter(row -> row.sid() == sid && !row.state().hasExited())
        .toList();
  }

  /**
   * Polls only the given processes (1 ms apart, one {@code /proc/<pid>/stat} read each) until every
   * one has exited or its pid names another process: O(members), whatever else the machine runs.
   */
  static boolean awaitGone(List<ProcessInfo> members, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (members.stream().anyMatch(Trees::alive)) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(1);
    }
    return true;
  }

  private static boolean alive(ProcessInfo member) {
    return ProcFs.stat(member.pid())
        .filter(now -> now.startTime() == member.startTime() && !now.state().hasExited())
        .isPresent();
  }

  /** Polls {@code /proc} (1 ms apart) until session {@code sid} has no live member. */
  static boolean awaitEmpty(long sid, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (liveInSession(sid) > 0) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(1);
    }
    return true;
  }

  /**
   * Cleanup: SIGKILL to group {@code pgid} (the whole tree: its shells do no job control), then
   * verified empty; throws when anything of the session survives 10 s.
   */
  static void killAndVerify(ProcessPlatform platform, long sid) throws InterruptedException {
    try {
      platform.signalGroup(sid, Signal.KILL);
    } catch (RuntimeException e) {
      // already gone
    }
    if (!awaitEmpty(sid, Duration.ofSeconds(10))) {
      throw new IllegalStateException("session " + sid + " still has live processes");
    }
  }

  /** The pids of session {@code sid} that are not zombies. */
  static List<Long> liveMembers(long sid) {
    return ProcFs.snapshot().all().stream()
        .filter(r -> r.sid() == sid && !r.state().hasExited())
        .map(ProcessInfo::pid)
        .toList();
  }
}
