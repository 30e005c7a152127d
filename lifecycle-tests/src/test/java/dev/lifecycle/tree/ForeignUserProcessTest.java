package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.AsNobody;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Requirement;
import dev.lifecycle.tether.Procs;
import java.io.BufferedReader;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unprivileged user's SESSION-tier close while another user starts a process: that process's
 * environment is unreadable to the closing user and the kernel would not let it signal the process,
 * so it is none of the tree's suspects. Staged with real users: this JVM (root) runs {@link
 * ForeignUserCloseMain} as {@code nobody} and starts a root {@code sleep} after that JVM's tree, as
 * a root build beside an unprivileged one does.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ForeignUserProcessTest {
  private static final Duration BOUND = Duration.ofSeconds(60);

  @RegisterExtension final TreeReaper reaper = new TreeReaper();

  @TempDir Path dir;

  @Test
  void anotherUsersProcessStartedDuringTheCloseIsNoSuspect() throws Exception {
    Requirement.require(ProcFs.isAvailable(), "needs /proc");
    Process child = AsNobody.in(dir).javaMain(ForeignUserCloseMain.class).start();
    Process foreign = null;
    try {
      BufferedReader out = Procs.stdout(child);
      String ready = Procs.readLine(out, BOUND);
      assertThat(ready).as("the unprivileged JVM's first line").startsWith("READY ");
      String[] leader = ready.split(" ");
      reaper.track(new ProcessIdentity(Long.parseLong(leader[1]), Long.parseLong(leader[2]), ""));

      // Root's process, started after the tree, in no session, group or parentage of it.
      foreign =
          new ProcessBuilder("sleep", "300")
              .redirectOutput(Redirect.DISCARD)
              .redirectError(Redirect.DISCARD)
              .start();
      try (OutputStream stdin = child.getOutputStream()) {
        stdin.write((foreign.pid() + "\n").getBytes(StandardCharsets.UTF_8));
      }
      List<String> lines = new ArrayList<>();
      for (String line = Procs.readLine(out, BOUND);
          line != null;
          line = Procs.readLine(out, BOUND)) {
        lines.add(line);
      }
      System.out.println(String.join("\n", lines));
      assertThat(child.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS))
          .as("the unprivileged JVM exits")
          .isTrue();
      assertThat(child.exitValue()).as("%s", lines).isZero();
      // What makes this a stage at all: the closing user can neither read nor signal it.
      assertThat(lines).contains("environment UNREADABLE", "probe ALIVE_NOT_OURS", "tier SESSION");
      assertThat(foreign.isAlive()).as("root's process outlived the close").isTrue();
      assertThat(lines).contains("noSurvivorSeen true");
      String named = "unprovable " + foreign.pid() + " ";
      assertThat(lines).noneMatch(line -> line.startsWith(named));
    } finally {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
      if (foreign != null) {
        foreign.destroyForcibly();
        foreign.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }
}
