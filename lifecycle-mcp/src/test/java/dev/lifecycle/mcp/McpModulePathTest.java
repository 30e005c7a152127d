package dev.lifecycle.mcp;

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
import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * lifecycle-mcp as a user's application sees it, in a JVM of its own: a module that requires only
 * {@code dev.lifecycle.mcp} runs a whole MCP session (initialize, list tools, call echo, close)
 * with the real server-everything, on the module path and on the class path, on JDK 17 and 25 (both
 * required under {@code CI=true}). The JVM gets exactly the runtime jars a user of lifecycle-mcp
 * and the SDK's {@code mcp} bundle has; the server's processes and the tether sidecar are verified
 * gone after it exits.
 */
@NoProcessLeaks
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class McpModulePathTest {
  private static final int[] MAJORS = {17, 25};
  private static final Duration RUN_BOUND = Duration.ofSeconds(120);
  private static final Duration GONE_BOUND = Duration.ofSeconds(10);
  private static final String RESTRICTED = "restricted method";

  /** The SDK's bundle module: its descriptor is what names the JSON binding and Jackson 3. */
  private static final String SDK_BUNDLE = "io.modelcontextprotocol.sdk.mcp";

  private static final String MAIN_MODULE = "mcpdemo/mcpdemo.Main";
  private static final String MAIN_CLASS = "mcpdemo.Main";
  private static final String ECHO = "hello from the module path";

  @TempDir static Path work;
  private static List<Path> runtime;
  private static Path demo;
  private static Path bundleDemo;
  private String tag;

  @BeforeAll
  static void theDemoModules() throws Exception {
    runtime =
        List.of(
            locationOf(SupervisedStdioClientTransport.class), // lifecycle-mcp
            locationOf(ProcessPlatform.class), // lifecycle-core
            locationOf(PosixPlatformProvider.class), // lifecycle-posix
            locationOf(com.sun.jna.Native.class),
            locationOf(org.slf4j.LoggerFactory.class),
            locationOf(org.slf4j.simple.SimpleLogger.class),
            locationOf(io.modelcontextprotocol.client.McpClient.class), // mcp-core
            locationOf(io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapperSupplier.class),
            moduleOnTheClassPath(SDK_BUNDLE), // the `mcp` jar: a descriptor, no classes
            locationOf(reactor.core.publisher.Mono.class),
            locationOf(org.reactivestreams.Publisher.class),
            locationOf(tools.jackson.databind.ObjectMapper.class),
            locationOf(tools.jackson.core.JsonParser.class),
            locationOf(com.fasterxml.jackson.annotation.JsonProperty.class),
            // The SDK's JSON schema validator (networknt) and what it requires.
            locationOf(com.networknt.schema.SchemaRegistry.class),
            locationOf(com.ethlo.time.ITU.class),
            locationOf(tools.jackson.dataformat.yaml.YAMLMapper.class),
            locationOf(org.snakeyaml.engine.v2.api.Load.class));
    demo = compile("modular-mcp-demo");
    bundleDemo = compile("modular-mcp-bundle-demo");
  }

  @BeforeEach
  void freshTag() {
    McpServers.require(); // per test, not per class: a class skipped whole reports 0 tests run
    tag = McpServers.newTag();
  }

  @AfterEach
  void killWhatIsLeft() throws InterruptedException {
    if (tag != null) {
      assertThat(Tagged.cleanUp(tag)).as("tagged processes left by the test").isZero();
    }
  }

  static Stream<Arguments> jdksAndPaths() {
    List<Arguments> cases = new ArrayList<>();
    for (int major : MAJORS) {
      cases.add(Arguments.of(major, "module path"));
      cases.add(Arguments.of(major, "class path"));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "JDK {0}, {1}")
  @MethodSource("jdksAndPaths")
  void aSessionRunsAndItsServerTreeIsGoneAfterwards(int major, String where) throws Exception {
    boolean modulePath = where.equals("module path");
    List<String> command = new ArrayList<>(List.of(Jdks.java(major).toString()));
    if (modulePath) {
      command.addAll(
          List.of(
              "--enable-native-access=com.sun.jna",
              "--add-modules",
              SDK_BUNDLE,
              "--module-path",
              path(runtime, demo),
              "--module",
              MAIN_MODULE));
    } else {
      command.addAll(
          List.of("--enable-native-access=ALL-UNNAMED", "-cp", path(runtime, demo), MAIN_CLASS));
    }
    assertTheSessionRanAndEnded(runTheDemo(command), modulePath);
  }

  /** The other way the README names: the application's module requires the SDK's bundle. */
  @ParameterizedTest(name = "JDK {0}")
  @MethodSource("majors")
  void anApplicationThatRequiresTheSdkBundleNeedsNoAddModules(int major) throws Exception {
    Run run = runAsModule(major, bundleDemo);
    assertTheSessionRanAndEnded(run, true);
  }

  /**
   * Why the README names the bundle: the SDK finds its JSON binding with a ServiceLoader inside
   * automatic modules, which declare no dependencies, so without a root naming the bundle Jackson 3
   * is never resolved and the mapper fails to load, before any server starts.
   */
  @ParameterizedTest(name = "JDK {0}")
  @MethodSource("majors")
  void withoutTheSdkBundleTheJsonMapperCannotLoad(int major) throws Exception {
    Run run = runAsModule(major, demo);
    assertThat(run.exitCode).as(run.toString()).isNotZero();
    assertThat(run.stdout)
        .as(run.toString())
        .contains("mcp module: dev.lifecycle.mcp")
        .doesNotContain("json mapper module:")
        .doesNotContain("member:");
    assertThat(run.stderr).as(run.toString()).contains("NoClassDefFoundError: tools/jackson/");
    assertThat(Tagged.awaitNone(tag, GONE_BOUND)).as("no server was started").isEmpty();
  }

  /**
   * The modules whose types the API speaks are required transitively. The sessions above cannot
   * tell: the SDK and Reactor are automatic modules, and reading one automatic module reads them
   * all, so with either {@code transitive} dropped the demo still compiles and runs.
   */
  @Test
  void theModulesTheApiSpeaksAreRequiredTransitively() throws Exception {
    ModuleDescriptor mcp =
        ModuleFinder.of(locationOf(SupervisedStdioClientTransport.class))
            .find("dev.lifecycle.mcp")
            .orElseThrow()
            .descriptor();
    assertThat(mcp.requires())
        .filteredOn(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
        .extracting(ModuleDescriptor.Requires::name)
        .contains("dev.lifecycle.core", "io.modelcontextprotocol.sdk.mcp.core", "reactor.core");
    assertThat(mcp.exports())
        .extracting(ModuleDescriptor.Exports::source)
        .containsExactly("dev.lifecycle.mcp");
  }

  static Stream<Integer> majors() {
    return Arrays.stream(MAJORS).boxed();
  }

  private Run runTheDemo(List<String> jvm) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(jvm);
    command.addAll(List.of(McpServers.cache().toString(), tag, ECHO));
    return Run.of(command);
  }

  private void assertTheSessionRanAndEnded(Run run, boolean modulePath) throws Exception {
    assertThat(run.exitCode).as(run.toString()).isZero();
    assertThat(run.stdout)
        .as(run.toString())
        .contains("mcp module: " + (modulePath ? "dev.lifecycle.mcp" : "unnamed"))
        .contains(
            "sdk module: " + (modulePath ? "io.modelcontextprotocol.sdk.mcp.core" : "unnamed"))
        .contains(
            "json mapper module: "
                + (modulePath ? "io.modelcontextprotocol.sdk.mcp.json.jackson3" : "unnamed"))
        .contains("closed: true")
        .contains("reason: CLOSED")
        .contains("no survivor seen: true");
    assertThat(run.value("echo"))
        .as(run.toString())
        .hasValueSatisfying(v -> assertThat(v).contains(ECHO));
    assertThat(run.value("tools").map(Integer::parseInt))
        .as(run.toString())
        .hasValueSatisfying(n -> assertThat(n).isPositive());
    assertThat(run.stderr)
        .as(run.toString())
        .doesNotContain("NoClassDefFoundError")
        .doesNotContain("IllegalAccessError")
        .doesNotContain("InaccessibleObjectException")
        .doesNotContain("ServiceConfigurationError")
        .doesNotContainIgnoringCase(RESTRICTED);

    List<ProcessIdentity> server = run.identities("member");
    assertThat(server)
        .as("the npx chain (npm exec -> sh -> node): " + run)
        .hasSizeGreaterThanOrEqualTo(3);
    List<ProcessIdentity> sidecar = run.identities("sidecar");
    assertThat(sidecar).as(run.toString()).hasSize(1);
    Await.allGone(GONE_BOUND, server);
    Await.allGone(GONE_BOUND, sidecar); // the demo JVM's tether ends with it
    assertThat(Tagged.awaitNone(tag, GONE_BOUND)).as("anything carrying the tag").isEmpty();
  }

  private static Path compile(String moduleInfoFrom) throws IOException {
    return DemoModules.compile(
        McpModulePathTest.class,
        Map.of(
            "module-info.java",
            "/" + moduleInfoFrom + "/module-info.java",
            "mcpdemo/Main.java",
            "/modular-mcp-demo/mcpdemo/Main.java"),
        work.resolve(moduleInfoFrom),
        work.resolve(moduleInfoFrom + "-classes"),
        path(runtime));
  }

  /** Runs {@code app}'s main module on the module path beside the runtime, on JDK {@code major}. */
  private Run runAsModule(int major, Path app) throws IOException, InterruptedException {
    return runTheDemo(
        List.of(
            Jdks.java(major).toString(),
            "--enable-native-access=com.sun.jna",
            "--module-path",
            path(runtime, app),
            "--module",
            MAIN_MODULE));
  }

  /** One run of the demo JVM, bounded; the JVM is killed if it overruns. */
  private record Run(int exitCode, String stdout, String stderr) {
    static Run of(List<String> command) throws IOException, InterruptedException {
      Output output =
          ChildJvm.run(
              new ProcessBuilder(command).redirectInput(Redirect.from(new File("/dev/null"))),
              work,
              RUN_BOUND);
      return new Run(output.exitCode(), output.stdout(), output.stderr());
    }

    /** The value of the first line {@code key: value}. */
    Optional<String> value(String key) {
      return stdout
          .lines()
          .filter(line -> line.startsWith(key + ": "))
          .map(line -> line.substring(key.length() + 2).strip())
          .findFirst();
    }

    /** The identities on the lines {@code key: pid starttime}. */
    List<ProcessIdentity> identities(String key) {
      return stdout
          .lines()
          .filter(line -> line.startsWith(key + ": "))
          .map(line -> line.substring(key.length() + 2).strip().split(" "))
          .map(
              f -> new ProcessIdentity(Long.parseLong(f[0]), Long.parseLong(f[1]), ProcFs.bootId()))
          .toList();
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }

  /** The class path entry that holds module {@code name}, for a jar with no class to locate. */
  private static Path moduleOnTheClassPath(String name) {
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path path = Path.of(entry);
      if (!Files.exists(path)) {
        continue;
      }
      try {
        Optional<ModuleReference> found = ModuleFinder.of(path).find(name);
        if (found.isPresent()) {
          return path;
        }
      } catch (FindException e) {
        // Not a module of a derivable name (e.g. a test folder): not the one looked for.
      }
    }
    throw new AssertionError("module " + name + " is not on the test class path");
  }
}
