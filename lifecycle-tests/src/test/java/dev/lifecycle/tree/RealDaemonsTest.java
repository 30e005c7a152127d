package dev.lifecycle.tree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.cgroup.Cgroups;
import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.Requirement;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Real daemons (Debian's redis-server and nginx) under {@link ProcessTree}: both daemonize (fork,
 * setsid, the parent exits) and rewrite their environment area for a process title, so only the
 * CGROUP tier contains them. In the SESSION tier the report must name them as unprovable, never
 * call the tree complete. Skipped when the programs are missing, failed under CI=true (.ci/run
 * installs them).
 */
@NoProcessLeaks
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RealDaemonsTest {
  private static final Duration GRACE = Duration.ofSeconds(2);
  private static final Duration BOUND = Duration.ofSeconds(20);

  @TempDir Path dir;
  private final TreeReaper reaper = new TreeReaper();
  private final List<ProcessIdentity> daemons = new ArrayList<>();

  @AfterEach
  void cleanUp() {
    for (ProcessIdentity daemon : daemons) {
      ProcessPlatform.get().signal(daemon, Signal.KILL);
    }
    reaper.killAll();
  }

  private static TreeOptions options(Containment.Mode mode) {
    return TreeOptions.defaults().withGrace(GRACE).withContainment(mode);
  }

  private ProcessBuilder redis() {
    return Adversaries.sh(
        Requirement.program("redis-server")
            + " --port 0 --unixsocket "
            + dir.resolve("redis.sock")
            + " --daemonize yes --pidfile "
            + dir.resolve("daemon.pid")
            + " --dir "
            + dir
            + " --save '' --appendonly no --logfile "
            + dir.resolve("redis.log"));
  }

  private ProcessBuilder nginx() throws IOException {
    Path nginx = Requirement.program("nginx");
    for (String sub : List.of("body", "proxy", "fastcgi", "uwsgi", "scgi")) {
      Files.createDirectories(dir.resolve(sub));
    }
    Files.writeString(
        dir.resolve("nginx.conf"),
        String.join(
            "\n",
            "daemon on; master_process on; worker_processes 2;",
            "pid " + dir.resolve("daemon.pid") + ";",
            "error_log " + dir.resolve("error.log") + ";",
            "events { worker_connections 16; }",
            "http {",
            "  access_log off;",
            "  client_body_temp_path " + dir.resolve("body") + ";",
            "  proxy_temp_path " + dir.resolve("proxy") + ";",
            "  fastcgi_temp_path " + dir.resolve("fastcgi") + ";",
            "  uwsgi_temp_path " + dir.resolve("uwsgi") + ";",
            "  scgi_temp_path " + dir.resolve("scgi") + ";",
            "  server { listen unix:" + dir.resolve("nginx.sock") + "; return 204; }",
            "}",
            ""));
    return Adversaries.sh(
        nginx
            + " -p "
            + dir
            + " -e "
            + dir.resolve("error.log")
            + " -c "
            + dir.resolve("nginx.conf"));
  }

  /** The daemon named by its pid file, and its children (nginx workers), once all are up. */
  private List<ProcessIdentity> awaitDaemon(int processes) {
    long pid = Await.until(BOUND, "the daemon's pid file", this::readPid, p -> p > 0);
    List<ProcessIdentity> all =
        Await.until(
            BOUND,
            processes + " daemon processes",
            () -> {
              List<ProcessIdentity> found = new ArrayList<>();
              ProcFs.identity(pid).ifPresent(found::add);
              for (ProcessInfo row : ProcFs.snapshot().children(pid)) {
                found.add(row.identity(ProcFs.bootId()));
              }
              return found;
            },
            found -> found.size() >= processes);
    daemons.addAll(all);
    return all;
  }

  private long readPid() {
    try {
      String text = Files.readString(dir.resolve("daemon.pid")).trim();
      return text.isEmpty() ? 0 : Long.parseLong(text);
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
  }

  private void assertContained(ProcessBuilder daemon, int processes) throws Exception {
    Cgroups.writableParentOrSkip();
    ProcessTree tree =
        reaper.track(
            ProcessTree.spawn(
                ProcessPlatform.get(), daemon, options(Containment.Mode.REQUIRE_CGROUP)));
    List<ProcessIdentity> all = awaitDaemon(processes);
    assertThat(tree.view().escapees()).extracting(TreeMember::identity).containsAll(all);

    TerminationReport report = tree.terminate(GRACE);

    System.out.println(report);
    assertThat(report.tier()).isEqualTo(ContainmentTier.CGROUP);
    assertThat(report.isComplete()).isTrue();
    assertThat(all).allMatch(Await::isGone);
    assertThat(Files.exists(tree.cgroup().orElseThrow())).isFalse();
  }

  private void assertReportedUnprovable(ProcessBuilder daemon, int processes) throws Exception {
    ProcessTree tree =
        reaper.track(
            ProcessTree.spawn(ProcessPlatform.get(), daemon, options(Containment.Mode.SESSION)));
    List<ProcessIdentity> all = awaitDaemon(processes);
    ProcessIdentity master = all.get(0);
    // The launcher exits once the daemon is up: then the tree's own processes are all gone.
    tree.leader().onExit().get(BOUND.toSeconds(), TimeUnit.SECONDS);

    TerminationReport report = tree.terminate(GRACE);

    System.out.println(report);
    assertThat(report.tier()).isEqualTo(ContainmentTier.SESSION);
    assertThat(ProcessPlatform.get().probe(master)).isEqualTo(Liveness.ALIVE);
    assertThat(report.isComplete()).isFalse();
    assertThat(report.unprovable()).anyMatch(line -> line.startsWith(master.pid() + " "));
  }

  /** A real daemonizing server and how many processes it leaves running. */
  enum Daemon {
    REDIS(1),
    NGINX(3);

    final int processes;

    Daemon(int processes) {
      this.processes = processes;
    }
  }

  private ProcessBuilder start(Daemon daemon) throws IOException {
    return daemon == Daemon.REDIS ? redis() : nginx();
  }

  @ParameterizedTest
  @EnumSource(Daemon.class)
  void aDaemonizedServerIsEndedInTheCgroupTier(Daemon daemon) throws Exception {
    assertContained(start(daemon), daemon.processes);
  }

  @ParameterizedTest
  @EnumSource(Daemon.class)
  void aDaemonizedServerIsReportedUnprovableInTheSessionTier(Daemon daemon) throws Exception {
    assertReportedUnprovable(start(daemon), daemon.processes);
  }
}
