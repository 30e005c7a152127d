package dev.lifecycle.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardCopyOption.COPY_ATTRIBUTES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.examples.cli.Cli;
import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.CgroupHierarchy;
import dev.lifecycle.testing.Await;
import java.io.File;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The packaged launcher ({@code target/lifecycle-example}) as a user runs it: the first call trains
 * a class-data archive for this JDK, later calls run with it, and stdout carries only the CLI's
 * output. Runs after {@code package} (the surefire execution {@code launcher} in this module's
 * pom), when the jar and the launcher exist.
 */
class LauncherIT {
  private static final String ECHO = "{\"op\":\"call\",\"tool\":\"echo\",\"args\":\"echo-ok\"}";
  private static final Path TARGET = Path.of("target").toAbsolutePath();
  private static final String LAUNCHER = "lifecycle-example";
  private static final String JAR = "lifecycle-examples-0.1.0-SNAPSHOT.jar";

  /** The launcher, its jar and lib/ as a user installs them, times kept: this test changes them. */
  private Path install;

  @Test
  void trainsAnArchiveOnFirstUseThenRunsWithIt() throws Exception {
    assertThat(TARGET.resolve(LAUNCHER)).isExecutable();
    Path cds = Files.createTempDirectory("launcher-cds-");
    install = Files.createTempDirectory("launcher-install-");
    Files.createDirectory(install.resolve("lib"));
    Files.copy(TARGET.resolve(LAUNCHER), install.resolve(LAUNCHER), COPY_ATTRIBUTES);
    Files.copy(TARGET.resolve(JAR), install.resolve(JAR), COPY_ATTRIBUTES);
    try (var jars = Files.list(TARGET.resolve("lib"))) {
      for (Path jar : (Iterable<Path>) jars::iterator) {
        Files.copy(jar, install.resolve("lib").resolve(jar.getFileName()), COPY_ATTRIBUTES);
      }
    }
    try (Workspace ws = new Workspace()) {
      Run first = launch(ws, cds, "");
      assertThat(first.exit).as(first.stderr).isZero();
      assertThat(first.stdout).isEqualTo("\"echo-ok\"\n");
      // The archive is assembled in the background after the first run.
      Path archive =
          Await.until(
              Duration.ofSeconds(60),
              "the CLI's archive in " + cds,
              () -> archiveIn(cds),
              a -> a != null);
      Path log = cds.resolve("classes.log");
      Run second = launch(ws, cds, "-Xlog:class+load=info:file=" + log);
      assertThat(second.exit).as(second.stderr).isZero();
      assertThat(second.stdout).isEqualTo("\"echo-ok\"\n");
      assertThat(Files.readString(log))
          .as("the CLI's own classes come from %s", archive)
          .contains("dev.lifecycle.examples.cli.Cli source: shared objects file");
      // The archive was trained on a cold call (it started the broker); a class only the warm
      // path loads would come from its jar, and reading a jar costs a warm call milliseconds.
      assertAllLifecycleClassesFromTheArchive(log, archive);

      // A jar replaced by an older file (as an unpacked release leaves it): JDK 17-24 refuse the
      // archive without a word on stdout; the launcher notices and the call after next trains a
      // new one.
      Path core = install.resolve("lib").resolve("lifecycle-core-0.1.0-SNAPSHOT.jar");
      FileTime trained = Files.getLastModifiedTime(archive);
      Files.setLastModifiedTime(core, FileTime.from(trained.toInstant().minus(Duration.ofDays(1))));
      for (int call = 0; call < 2; call++) {
        assertThat(launch(ws, cds, "").stdout).isEqualTo("\"echo-ok\"\n");
      }
      boolean retrains = Runtime.version().feature() < 25; // the AOT cache ignores the times
      Path again =
          Await.until(
              Duration.ofSeconds(60),
              "a newer archive in " + cds,
              () -> archiveIn(cds),
              a -> a != null && (!retrains || isNewer(a, trained)));
      Run after = launch(ws, cds, "-Xlog:class+load=info:file=" + log);
      assertThat(after.stdout).isEqualTo("\"echo-ok\"\n");
      assertAllLifecycleClassesFromTheArchive(log, again);
      long broker = ws.store().read(Cli.BROKER_NAME).record().orElseThrow().owner().pid();
      Optional<Path> brokerCgroup =
          CgroupHierarchy.locate().flatMap(h -> h.of(broker)).map(Cgroup::path);
      ws.shutdownAll();
      assertThat(ws.marked()).isEmpty(); // the broker, its backend and any archive builder
      if (Containment.current().tier() == ContainmentTier.CGROUP) {
        // made by the first CLI, which exited long before: the broker removed it as it ended
        assertThat(brokerCgroup).as("the broker ran in its tree's cgroup").isPresent();
        assertThat(brokerCgroup.get()).doesNotExist();
      }
    } finally {
      for (Path dir : List.of(cds, install)) {
        try (var files = Files.walk(dir)) {
          files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
      }
    }
  }

  private static void assertAllLifecycleClassesFromTheArchive(Path log, Path archive)
      throws Exception {
    try (var lines = Files.lines(log)) {
      assertThat(lines.filter(l -> l.contains("] dev.lifecycle.")))
          .as("the warm call's lifecycle classes, all from %s", archive)
          .isNotEmpty()
          .allMatch(l -> l.contains(" source: shared objects file"));
    }
  }

  private static boolean isNewer(Path file, FileTime than) {
    try {
      return Files.getLastModifiedTime(file).compareTo(than) > 0;
    } catch (java.io.IOException e) {
      return false; // being replaced
    }
  }

  private static Path archiveIn(Path cds) {
    try (var files = Files.list(cds)) {
      return files
          .filter(f -> f.getFileName().toString().matches("cli-.*\\.(jsa|aot)"))
          .findFirst()
          .orElse(null);
    } catch (java.io.IOException e) {
      return null;
    }
  }

  private record Run(int exit, String stdout, String stderr) {}

  /** One launcher run on this test's JDK, marked as the workspace's, bounded to 60 s. */
  private Run launch(Workspace ws, Path cds, String javaOptions) throws Exception {
    ProcessBuilder b =
        new ProcessBuilder(List.of(install.resolve(LAUNCHER).toString(), ws.dir.toString(), ECHO))
            .redirectInput(Redirect.from(new File("/dev/null")));
    b.environment().put("JAVA_HOME", System.getProperty("java.home"));
    b.environment().put("LIFECYCLE_EXAMPLE_CDS_DIR", cds.toString());
    b.environment().put("LIFECYCLE_EXAMPLE_JAVA_OPTS", javaOptions);
    b.environment().put(Workspace.MARK, ws.mark);
    Process p = b.start();
    try {
      String out = new String(p.getInputStream().readAllBytes(), UTF_8);
      String err = new String(p.getErrorStream().readAllBytes(), UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("launcher exits within 60 s").isTrue();
      return new Run(p.exitValue(), out, err);
    } finally {
      p.destroyForcibly();
    }
  }
}
