package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.AsNobody;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.Requirement;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    ProcessBuilder builder =
        AsNobody.in(dir)
            .javaMain(ForeignUserCloseMain.class)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    Process child = builder.start();
    Process foreign = null;
    try {
      String ready =
          Await.until(
              BOUND,
              "READY from the unprivileged JVM",
              () -> firstLine(out, "READY ", child, err),
              line -> !line.isEmpty());
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
      assertThat(child.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS))
          .as("the unprivileged JVM exits")
          .isTrue();
      String stdout = Files.readString(out, StandardCharsets.UTF_8);
      String all = stdout + "\nstderr:\n" + Files.readString(err, StandardCharsets.UTF_8);
      System.out.println(all);
      assertThat(child.exitValue()).as(all).isZero();
      // What makes this a stage at all: the closing user can neither read nor signal it.
      assertThat(stdout)
          .as(all)
          .contains("environment UNREADABLE\n", "probe ALIVE_NOT_OURS\n", "tier SESSION\n");
      assertThat(foreign.isAlive()).as("root's process outlived the close").isTrue();
      assertThat(stdout).as(all).contains("noSurvivorSeen true\n");
      assertThat(stdout).as(all).doesNotContain("unprovable " + foreign.pid() + " ");
    } finally {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
      if (foreign != null) {
        foreign.destroyForcibly();
        foreign.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /** The first line of {@code file} that starts with {@code prefix}, else "" while the JVM runs. */
  private static String firstLine(Path file, String prefix, Process child, Path err) {
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (line.startsWith(prefix)) {
          return line;
        }
      }
      if (!child.isAlive()) {
        throw new AssertionError(
            "the unprivileged JVM exited "
                + child.exitValue()
                + ": "
                + Files.readString(err, StandardCharsets.UTF_8));
      }
      return "";
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
