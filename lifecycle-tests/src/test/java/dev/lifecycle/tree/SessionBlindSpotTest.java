package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.Requirement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SESSION tier's blind spot, staged with real processes: a descendant that leaves the session
 * ({@code setsid -f}, whose parent exits at once, so it is re-parented) and drops its environment
 * ({@code env -i}; the shell then exports only {@code PWD}, so the environment is neither empty nor
 * a cookie) is found by none of session, group, parentage or cookie. While it runs, the report must
 * not call the tree complete, and must name what it cannot see.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionBlindSpotTest {
  private static final Duration BOUND = Duration.ofSeconds(20);

  @RegisterExtension final TreeReaper reaper = new TreeReaper();

  @Test
  void anEscapeeNoMeansCanSeeNeverMakesASessionReportComplete() throws Exception {
    Requirement.require(ProcFs.isAvailable(), "needs /proc");
    Requirement.require(Files.isExecutable(Path.of("/usr/bin/setsid")), "needs setsid -f");
    // A unique argument names the escapee, so the test finds and ends exactly that process.
    String token = "300." + ThreadLocalRandom.current().nextLong(1_000_000_000L, 9_999_999_999L);
    ProcessTree tree =
        reaper.track(
            ProcessTree.spawn(
                ProcessPlatform.get(),
                Adversaries.sh(
                    "env -i setsid -f sh -c 'trap \"\" TERM; exec sleep "
                        + token
                        + "'; exec sleep 300"),
                TreeOptions.defaults()
                    .withGrace(Duration.ofMillis(500))
                    .withContainment(Containment.Mode.SESSION)));
    assertThat(tree.tier()).isEqualTo(ContainmentTier.SESSION);
    ProcessIdentity escapee =
        Await.until(BOUND, "the escaped sleep", () -> find(token), Optional::isPresent)
            .orElseThrow();
    reaper.track(escapee);
    // The leader execs its own sleep once setsid's parent has exited: the escapee is an orphan.
    Await.until(
        BOUND,
        "the leader's own sleep",
        () -> List.of("sleep", "300").equals(ProcFs.commandLine(tree.leader().pid()).orElse(null)));

    TerminationReport report = tree.terminate();

    System.out.println(report);
    assertThat(ProcessPlatform.get().probe(escapee))
        .as("the escapee is beyond this tier (else this test stages nothing): %s", report)
        .isEqualTo(Liveness.ALIVE);
    assertThat(report.tier()).isEqualTo(ContainmentTier.SESSION);
    assertThat(report.isComplete()).as(report.toString()).isFalse();
    assertThat(report.unprovable()).first().isEqualTo(TerminationReport.SESSION_BLIND_SPOT);
    // Nothing it could see was left: that is all this tier can say, and all it says.
    assertThat(report.noSurvivorSeen()).as(report.toString()).isTrue();
    assertThat(report.toString())
        .contains("NOT PROVEN [" + TerminationReport.SESSION_BLIND_SPOT)
        .endsWith(", no survivor seen, not proven]");

    assertThat(ProcessPlatform.get().signal(escapee, Signal.KILL)).isNotNull();
    Await.allGone(BOUND, List.of(escapee));
  }

  /** The live process whose command line is exactly {@code sleep <token>}, checked via /proc. */
  private static Optional<ProcessIdentity> find(String token) {
    List<String> wanted = List.of("sleep", token);
    for (long pid : ProcFs.pids()) {
      if (pid > 1 && wanted.equals(ProcFs.commandLine(pid).orElse(null))) {
        Optional<ProcessIdentity> identity = ProcFs.identity(pid);
        if (identity.isPresent()
            && wanted.equals(ProcFs.commandLine(pid).orElse(null))) { // the pid still names it
          return identity;
        }
      }
    }
    return Optional.empty();
  }
}
