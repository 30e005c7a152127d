package dev.lifecycle.modules;

import static dev.lifecycle.testing.DemoModules.locationOf;
import static dev.lifecycle.testing.DemoModules.path;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.posix.PosixPlatformProvider;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.ChildJvm;
import dev.lifecycle.testing.ChildJvm.Output;
import dev.lifecycle.testing.DemoModules;
import dev.lifecycle.testing.Jdks;
import dev.lifecycle.testkit.NoProcessLeaks;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The published jars as a user's application sees them, in a JVM of its own: a module that requires
 * only {@code dev.lifecycle.core} gets the native platform through {@code uses}/{@code provides},
 * logs through slf4j, cannot reach the internals, and spawns and ends a real tree; the same program
 * also runs on the class path. On every JDK 17 and 25 found (both required under {@code CI=true}).
 */
@NoProcessLeaks
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ModulePathTest {
  private static final int[] MAJORS = {17, 25};
  private static final Duration RUN_BOUND = Duration.ofSeconds(60);
  private static final String RESTRICTED = "restricted method";

  @TempDir static Path work;
  private static Path demo;
  private static Path kitDemo;
  private static List<Path> libraries;
  private static List<Path> kitLibraries;

  @BeforeAll
  static void compileTheDemoModule() throws Exception {
    libraries =
        List.of(
            locationOf(ProcessPlatform.class), // lifecycle-core
            locationOf(PosixPlatformProvider.class), // lifecycle-posix
            locationOf(org.slf4j.LoggerFactory.class),
            locationOf(org.slf4j.simple.SimpleLogger.class),
            locationOf(com.sun.jna.Native.class));
    kitLibraries = new ArrayList<>(libraries);
    kitLibraries.add(locationOf(dev.lifecycle.testkit.FixtureChild.class));
    kitLibraries.add(locationOf(org.junit.jupiter.api.Test.class));
    kitLibraries.add(locationOf(org.junit.platform.commons.support.AnnotationSupport.class));
    kitLibraries.add(locationOf(org.opentest4j.AssertionFailedError.class));
    kitLibraries.add(locationOf(org.apiguardian.api.API.class));
    kitLibraries.add(locationOf(org.jspecify.annotations.Nullable.class)); // JUnit 6 reads it
    kitLibraries.add(locationOf(org.assertj.core.api.Assertions.class));
    // Only core and slf4j on the compile path: the demo may name nothing else.
    demo = compile("modular-demo", "demo/Main.java", libraries.subList(0, 1), libraries.get(2));
    kitDemo = compile("modular-kit-demo", "kitdemo/Main.java", kitLibraries, demo);
  }

  private static Path compile(String resource, String main, List<Path> modulePath, Path extra)
      throws IOException {
    return DemoModules.compile(
        ModulePathTest.class,
        Map.of(
            "module-info.java",
            "/" + resource + "/module-info.java",
            main,
            "/" + resource + "/" + main),
        work.resolve(resource),
        work.resolve(resource + "-classes"),
        path(modulePath, extra));
  }

  static Stream<Arguments> jdksAndPaths() {
    List<Arguments> cases = new ArrayList<>();
    for (int major : MAJORS) {
      for (boolean modulePath : new boolean[] {true, false}) {
        cases.add(Arguments.of(major, modulePath ? "module path" : "class path"));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "JDK {0}, {1}")
  @MethodSource("jdksAndPaths")
  void theDemoSpawnsAndEndsATree(int major, String where) throws Exception {
    Path java = Jdks.java(major);
    boolean modulePath = where.equals("module path");
    List<String> command = new ArrayList<>(List.of(java.toString()));
    if (modulePath) {
      command.addAll(
          List.of(
              "--enable-native-access=com.sun.jna",
              "--module-path",
              path(libraries, demo),
              "--module",
              "demo/demo.Main"));
    } else {
      command.addAll(
          List.of("--enable-native-access=ALL-UNNAMED", "-cp", path(libraries, demo), "demo.Main"));
    }
    Run run = Run.of(command);

    assertThat(run.exitCode).as(run.toString()).isZero();
    assertThat(run.stdout)
        .as(run.toString())
        .contains("core module: " + (modulePath ? "dev.lifecycle.core" : "unnamed"))
        .contains("platform: posix")
        .contains("limit: 90s")
        .contains("no survivor seen: true");
    if (modulePath) {
      assertThat(run.stdout)
          .contains("procfs exported to demo: false")
          .contains("jdk fallback exported: false");
    }
    assertThat(run.stderr)
        .as("slf4j-simple printed the WARN; no linkage error; no native-access warning")
        .contains("WARN")
        .contains("demo value")
        .doesNotContain("NoClassDefFoundError")
        .doesNotContainIgnoringCase(RESTRICTED);
    List<ProcessIdentity> members = run.members();
    assertThat(members).as(run.toString()).hasSizeGreaterThanOrEqualTo(3);
    Await.allGone(Duration.ofSeconds(10), members);
  }

  /**
   * The test kit as a module: it resolves with JUnit's API and AssertJ (and without the optional
   * Testcontainers), reads its fixture script from inside its module, and its assertions run.
   */
  @ParameterizedTest(name = "JDK {0}")
  @MethodSource("majors")
  void theTestKitWorksOnTheModulePath(int major) throws Exception {
    Run run =
        Run.of(
            List.of(
                Jdks.java(major).toString(),
                "--enable-native-access=com.sun.jna",
                "--module-path",
                path(kitLibraries, kitDemo),
                "--module",
                "kitdemo/kitdemo.Main"));
    assertThat(run.exitCode).as(run.toString()).isZero();
    assertThat(run.stdout)
        .as(run.toString())
        .contains("kit module: dev.lifecycle.testkit")
        .contains("fixture said: hello")
        .contains("kit: ok");
    assertThat(run.stderr).as(run.toString()).doesNotContainIgnoringCase(RESTRICTED);
  }

  static Stream<Integer> majors() {
    return java.util.Arrays.stream(MAJORS).boxed();
  }

  /** Why the README names the flag: without it JDK 24+ warns about JNA's native access. */
  @Test
  void withoutTheFlagJdk25WarnsAboutNativeAccess() throws Exception {
    Path java = Jdks.java(25);
    Run run =
        Run.of(
            List.of(
                java.toString(),
                "--module-path",
                path(libraries, demo),
                "--module",
                "demo/demo.Main"));
    assertThat(run.exitCode).as(run.toString()).isZero();
    assertThat(run.stderr).as(run.toString()).containsIgnoringCase(RESTRICTED);
    Await.allGone(Duration.ofSeconds(10), run.members());
  }

  /** One run of the demo JVM, bounded; the JVM is killed if it overruns. */
  private record Run(int exitCode, String stdout, String stderr) {
    static Run of(List<String> command) throws IOException, InterruptedException {
      Output output = ChildJvm.run(new ProcessBuilder(command), work, RUN_BOUND);
      return new Run(output.exitCode(), output.stdout(), output.stderr());
    }

    List<ProcessIdentity> members() {
      List<ProcessIdentity> members = new ArrayList<>();
      for (String line : stdout.split("\n")) {
        if (line.startsWith("member: ")) {
          String[] f = line.substring(8).trim().split(" ");
          members.add(
              new ProcessIdentity(Long.parseLong(f[0]), Long.parseLong(f[1]), ProcFs.bootId()));
        }
      }
      return members;
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }
}
