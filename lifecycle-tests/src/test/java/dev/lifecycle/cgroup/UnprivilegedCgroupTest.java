package dev.lifecycle.cgroup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.CgroupPlacement;
import dev.lifecycle.process.cgroup.OwnedCgroups;
import dev.lifecycle.testing.Requirement;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CGROUP tier without privilege, as systemd delegates on a desktop or CI runner: root creates a
 * cgroup and hands it to {@code nobody} (owner of the directory and of {@code cgroup.procs}, {@code
 * cgroup.threads}, {@code cgroup.subtree_control}), puts a gated shell in it, and the shell execs a
 * JVM under {@code setpriv --reuid=nobody}; that JVM finds its own cgroup writable, nests its
 * tree's cgroup in it, and ends the tree with its escapees.
 */
@NoProcessLeaks
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnprivilegedCgroupTest {
  @TempDir Path tmp;

  @Test
  void anUnprivilegedJvmInADelegatedCgroupContainsItsTrees() throws Exception {
    Cgroup parent = Cgroups.writableParentOrSkip();
    if (!"0".equals(String.valueOf(Files.getAttribute(Path.of("/proc/self"), "unix:uid")))) {
      Requirement.unmet("setting up a delegated cgroup needs root");
    }
    Path setpriv = Requirement.program("setpriv");
    Cgroup delegated =
        parent.createChild(
            OwnedCgroups.newName(
                ProcessHandle.current().pid(), ProcessPlatform.get().self().startTime()));
    Process child = null;
    try {
      UserPrincipalLookupService users = tmp.getFileSystem().getUserPrincipalLookupService();
      for (Path p :
          List.of(
              delegated.path(),
              delegated.path().resolve("cgroup.procs"),
              delegated.path().resolve("cgroup.threads"),
              delegated.path().resolve("cgroup.subtree_control"))) {
        Files.setOwner(p, users.lookupPrincipalByName("nobody"));
      }
      String classpath = readableClasspath();
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      child =
          new ProcessBuilder(
                  "sh",
                  "-c",
                  "read go; exec "
                      + setpriv
                      + " --reuid=nobody --regid=nogroup --clear-groups "
                      + java
                      + " -XX:TieredStopAtLevel=1 -cp "
                      + classpath
                      + " "
                      + DelegatedTreeMain.class.getName())
              .redirectError(Redirect.INHERIT)
              .directory(tmp.toFile())
              .start();
      delegated.enter(child.pid()); // as root; from here on nobody owns the sub-tree
      OutputStream in = child.getOutputStream();
      in.write('\n');
      in.flush();
      List<String> lines = new ArrayList<>();
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          System.out.println("child: " + line);
          lines.add(line);
        }
      }
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(child.exitValue()).isZero();
      assertThat(lines)
          .anyMatch(l -> l.startsWith("TIER CGROUP") && l.contains(delegated.path().toString()));
      assertThat(lines).contains("MEMBERS 4");
      assertThat(lines).anyMatch(l -> l.startsWith("REPORT complete=true removed=true"));
      assertThat(delegated.children()).isEmpty();
    } finally {
      if (child != null && child.isAlive()) {
        if (delegated.canKill()) {
          delegated.kill();
        }
        child.destroyForcibly();
        child.waitFor(10, TimeUnit.SECONDS);
      }
      if (delegated.canKill()) {
        delegated.kill(); // whatever a failed run left in the sub-tree (all of it is ours)
        delegated.awaitEmpty(java.time.Duration.ofSeconds(10));
      }
      delegated.remove();
    }
  }

  @Test
  void anUnprivilegedJvmWithoutDelegationIsToldWhyAndHowToGetTheCgroupTier() throws Exception {
    Cgroups.writableParentOrSkip();
    if (!"0".equals(String.valueOf(Files.getAttribute(Path.of("/proc/self"), "unix:uid")))) {
      Requirement.unmet("running a JVM as another user needs root");
    }
    if (!Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
      Requirement.unmet("setpriv (util-linux) missing");
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // A service account: nobody, in this JVM's (root-owned) cgroup, with a HOME it cannot write.
    ProcessBuilder builder =
        new ProcessBuilder(
                "setpriv",
                "--reuid=nobody",
                "--regid=nogroup",
                "--clear-groups",
                java,
                "-XX:TieredStopAtLevel=1",
                "-cp",
                readableClasspath(),
                ContainmentReasonMain.class.getName())
            .redirectError(Redirect.INHERIT)
            .directory(tmp.toFile());
    builder.environment().put("HOME", "/nonexistent");
    builder.environment().remove("LIFECYCLE_CGROUP_PARENT");
    Process child = builder.start();
    try {
      String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(child.exitValue()).as(out).isZero();
      assertThat(out)
          .startsWith("TIER SESSION no writable cgroup: the JVM's cgroup ")
          .contains("EACCES")
          .contains(CgroupPlacement.HOW_TO_GET_CGROUP);
    } finally {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** The test classpath copied where {@code nobody} can read it (~/.m2 is root's, mode 0750). */
  private String readableClasspath() throws IOException {
    return dev.lifecycle.ReadableClasspath.copyUnder(tmp);
  }
}
