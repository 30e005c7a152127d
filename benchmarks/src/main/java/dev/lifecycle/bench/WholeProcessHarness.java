package dev.lifecycle.bench;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import dev.lifecycle.process.procfs.ProcFs;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Whole-process runs, interleaved: {@code java Hello}, the example CLI before the fast-client
 * changes (a class path of the old build, run as its tests ran it) and after them (its launcher,
 * with and without the class-data archive), warm and cold; and a program that spawns one child,
 * waits, closes the tree and returns from {@code main}, against the same program on {@link
 * ProcessBuilder}, before and after, on the library's class path alone, also in the SESSION tier
 * and on the pure-JDK platform. Wall time from {@code start()} to {@code waitFor()}; CPU from
 * {@code getrusage(RUSAGE_CHILDREN)} (the child and the descendants it waited for: a broker a cold
 * CLI starts is not included).
 *
 * <pre>
 * java -Dbefore.cp=... -Dbefore.libcp=... -Dafter.libcp=... \
 *   -Dlauncher=examples/target/lifecycle-example \
 *   -Dbench.classes=benchmarks/target/classes -cp benchmarks/target/benchmarks.jar \
 *   dev.lifecycle.bench.WholeProcessHarness warm,spawn,cold,classes 15
 * </pre>
 *
 * Every broker started is shut down at the end and proven gone (no process left carrying its
 * workspace in {@code LIFECYCLE_BROKER_DIRECTORY}).
 */
public final class WholeProcessHarness {
  private static final String REQUEST = "{\"op\":\"call\",\"tool\":\"echo\",\"args\":\"hi\"}";
  private static final String SHUTDOWN = "{\"op\":\"shutdown\"}";
  private static final String DIRECTORY_VARIABLE = "LIFECYCLE_BROKER_DIRECTORY";
  private static final List<String> CLI_FLAGS =
      List.of(
          "-XX:TieredStopAtLevel=1",
          "-XX:+UseSerialGC",
          "-Xss512k",
          "-Xmx64m",
          "--enable-native-access=ALL-UNNAMED",
          "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

  interface C extends Library {
    C INSTANCE = Native.load("c", C.class);

    int getrusage(int who, Memory usage);
  }

  private final String java = HarnessJvm.java();
  private final String beforeCp = require("before.cp");
  // The spawn programs run on the library alone: the examples jar's Class-Path names 20 jars
  // (the MCP SDK, Jackson, Reactor) that a service lookup would open and a user's CLI need not
  // have.
  private final String beforeLibCp = require("before.libcp");
  private final String afterLibCp = require("after.libcp");
  private final String launcher = require("launcher");
  private final String classes = require("bench.classes");
  private final Path scratch;
  private final List<Path> workspaces = new ArrayList<>();

  private WholeProcessHarness() throws IOException {
    scratch = Files.createTempDirectory("lifecycle-wph-");
  }

  private static String require(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("set -D" + property);
    }
    return value;
  }

  /** One program to run: its command, environment additions and what its stdout must contain. */
  record Run(List<String> command, Map<String, String> env, String expect) {
    Run withExpect(String text) {
      return new Run(command, env, text);
    }
  }

  /** A measured run: wall and CPU seconds, and the tree close time it printed (or -1). */
  record Sample(double wall, double cpu, double closeMs, double exitMs) {}

  public static void main(String[] args) throws Exception {
    Set<String> groups = Set.of(HarnessArgs.listArg(args, 0, "warm,spawn,cold"));
    int rounds = HarnessArgs.intArg(args, 1, 15);
    WholeProcessHarness harness = new WholeProcessHarness();
    System.out.println("[whole] load " + Files.readString(Path.of("/proc/loadavg")).trim());
    try {
      if (groups.contains("classes")) {
        harness.classes();
      }
      if (groups.contains("warm")) {
        harness.measure("warm", harness.warmRuns(), rounds, true);
      }
      if (groups.contains("spawn")) {
        harness.measure("spawn", harness.spawnRuns(), rounds, false);
      }
      if (groups.contains("leave")) {
        harness.measure("leave", harness.leaveRuns(), rounds, false);
      }
      if (groups.contains("cold")) {
        harness.cold(Math.max(3, rounds / 2));
      }
    } finally {
      harness.stopBrokers();
    }
    System.out.println("[whole] load " + Files.readString(Path.of("/proc/loadavg")).trim());
  }

  private Run hello() {
    return new Run(List.of(java, "-cp", classes, Hello.class.getName()), Map.of(), "hello");
  }

  private Run cliBefore(Path workspace, String request) {
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(CLI_FLAGS);
    command.addAll(List.of("-cp", beforeCp, "dev.lifecycle.examples.cli.Cli"));
    command.addAll(List.of(workspace.toString(), request));
    return new Run(command, Map.of(), "");
  }

  private Run cliAfter(Path workspace, String request, boolean archive) {
    return new Run(
        List.of(launcher, workspace.toString(), request),
        archive ? Map.of() : Map.of("LIFECYCLE_EXAMPLE_CDS", "off"),
        "");
  }

  private Run spawnExit(String classPath, String mode) {
    return new Run(
        List.of(
            java,
            "--enable-native-access=ALL-UNNAMED",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-cp",
            classes + File.pathSeparator + classPath,
            SpawnExit.class.getName(),
            mode),
        Map.of(),
        "");
  }

  private Path workspace(String name) {
    Path workspace = scratch.resolve(name);
    workspaces.add(workspace);
    return workspace;
  }

  private Map<String, Run> warmRuns() throws Exception {
    Path before = workspace("warm-before");
    Path after = workspace("warm-after");
    Map<String, Run> runs = new LinkedHashMap<>();
    runs.put("java Hello", hello());
    runs.put("CLI before (java -cp)", cliBefore(before, REQUEST).withExpect("\"hi\""));
    runs.put("CLI after (launcher, archive)", cliAfter(after, REQUEST, true).withExpect("\"hi\""));
    runs.put(
        "CLI after (launcher, no archive)", cliAfter(after, REQUEST, false).withExpect("\"hi\""));
    // start both brokers (and train the archives) before measuring; the launcher's second call
    // retrains an archive its first call found refused (a rebuilt lib/ jar), and the archive is
    // assembled in the background after a training call: wait for it, then use it once
    run(runs.get("CLI before (java -cp)"));
    run(runs.get("CLI after (launcher, archive)"));
    run(runs.get("CLI after (launcher, archive)"));
    awaitCliArchive();
    run(runs.get("CLI after (launcher, archive)"));
    return runs;
  }

  private void awaitCliArchive() throws InterruptedException {
    Path cds = Path.of(launcher).toAbsolutePath().getParent().resolve("cds");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!cliArchiveReady(cds)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("no CLI archive in " + cds + " after 60 s");
      }
      Thread.sleep(50);
    }
  }

  /** An archive of the CLI's is there and none is being assembled. */
  private static boolean cliArchiveReady(Path cds) {
    boolean archive = false;
    try (var files = Files.newDirectoryStream(cds, "cli-*")) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (name.contains(".tmp")) {
          return false;
        }
        archive |= name.endsWith(".jsa") || name.endsWith(".aot");
      }
    } catch (IOException e) {
      return false;
    }
    return archive;
  }

  private Map<String, Run> spawnRuns() {
    Map<String, Run> runs =
        againstProcessBuilder(
            "ProcessBuilder spawn-wait-exit",
            "pb",
            "ProcessTree before",
            "ProcessTree after",
            "tree");
    // Where the floor is: the same tree without a cgroup (no cgroup.procs write, whose first use
    // waits for an RCU grace period in the kernel), and on the pure-JDK platform (no JNA start).
    runs.put(
        "ProcessTree after, SESSION tier",
        withJvmFlag(spawnExit(afterLibCp, "tree"), "-Dlifecycle.containment=session"));
    runs.put(
        "ProcessTree after, pure-JDK platform",
        withJvmFlag(spawnExit(afterLibCp, "tree"), "-Dlifecycle.platform=jdk"));
    // The floor of a first spawn through the native platform: its start alone, no child.
    runs.put(
        "native platform start only (no spawn)",
        spawnExit(afterLibCp, "platform").withExpect("posix-"));
    return runs;
  }

  private Map<String, Run> leaveRuns() {
    return againstProcessBuilder(
        "ProcessBuilder, child left running",
        "pb-leave",
        "platform before, child left running",
        "platform after, child left running",
        "platform-leave");
  }

  /**
   * {@code pbMode} on ProcessBuilder first, the reference {@link #measure} divides by, then {@code
   * mode} on the library before and after.
   */
  private Map<String, Run> againstProcessBuilder(
      String pbName, String pbMode, String beforeName, String afterName, String mode) {
    Map<String, Run> runs = new LinkedHashMap<>();
    runs.put(pbName, spawnExit(afterLibCp, pbMode));
    runs.put(beforeName, spawnExit(beforeLibCp, mode));
    runs.put(afterName, spawnExit(afterLibCp, mode));
    return runs;
  }

  private void measure(String group, Map<String, Run> runs, int rounds, boolean againstHello)
      throws Exception {
    List<String> names = new ArrayList<>(runs.keySet());
    Map<String, List<Sample>> samples = new LinkedHashMap<>();
    names.forEach(name -> samples.put(name, new ArrayList<>()));
    for (int round = -2; round < rounds; round++) { // two warm-up rounds
      for (int i = 0; i < names.size(); i++) {
        String name = names.get(Math.floorMod(i + round, names.size())); // rotate the order
        Sample sample = run(runs.get(name));
        if (round >= 0) {
          samples.get(name).add(sample);
        }
      }
    }
    String reference = names.get(0);
    double refWall = Stats.median(wall(samples.get(reference)));
    double refCpu = Stats.median(cpu(samples.get(reference)));
    for (String name : names) {
      List<Sample> list = samples.get(name);
      double medianWall = Stats.median(wall(list));
      double medianCpu = Stats.median(cpu(list));
      System.out.printf(
          Locale.ROOT,
          "[%s] %-34s wall %s | cpu %s | ratio to %s: wall %.2fx cpu %.2fx%n",
          group,
          name,
          Stats.describe(wall(list), "s"),
          Stats.describe(cpu(list), "s"),
          againstHello ? "Hello" : "ProcessBuilder",
          medianWall / refWall,
          medianCpu / refCpu);
      printMillis(group, name, "exit after main returned", list, Sample::exitMs);
      printMillis(group, name, "close of the exited tree", list, Sample::closeMs);
    }
  }

  /** One line of the milliseconds {@code what} took, if any run printed them (-1 where not). */
  private static void printMillis(
      String group, String name, String what, List<Sample> list, ToDoubleFunction<Sample> millis) {
    double[] printed = list.stream().mapToDouble(millis).filter(v -> v >= 0).toArray();
    if (printed.length > 0) {
      System.out.printf(
          Locale.ROOT, "[%s] %-34s %s %s%n", group, name, what, Stats.describe(printed, "ms"));
    }
  }

  private void cold(int rounds) throws Exception {
    Map<String, List<Sample>> samples = new LinkedHashMap<>();
    samples.put("cold CLI before", new ArrayList<>());
    samples.put("cold CLI after (launcher)", new ArrayList<>());
    // Two warm-up rounds: the first trains the archives; the broker's is promoted only once its
    // training output has settled (ClassDataArchive.SETTLED, 10 s), so the second comes after that
    // and every measured round starts a broker with its archive in place.
    for (int round = -2; round < rounds; round++) {
      if (round == -1) {
        Thread.sleep(11_000);
      }
      for (String name : List.copyOf(samples.keySet())) {
        Path workspace = workspace("cold-" + round + "-" + (name.contains("before") ? "b" : "a"));
        boolean before = name.contains("before");
        Sample sample =
            run(
                (before ? cliBefore(workspace, REQUEST) : cliAfter(workspace, REQUEST, true))
                    .withExpect("\"hi\""));
        stop(workspace);
        if (round >= 0) {
          samples.get(name).add(sample);
        }
      }
    }
    for (Map.Entry<String, List<Sample>> entry : samples.entrySet()) {
      System.out.printf(
          Locale.ROOT,
          "[cold] %-34s wall %s | CLI cpu %s%n",
          entry.getKey(),
          Stats.describe(wall(entry.getValue()), "s"),
          Stats.describe(cpu(entry.getValue()), "s"));
    }
  }

  /** Loaded classes per variant: all, from JNA, from lifecycle-posix. */
  private void classes() throws Exception {
    Path before = workspace("classes-before");
    Path after = workspace("classes-after");
    run(cliBefore(before, REQUEST));
    run(cliAfter(after, REQUEST, true));
    awaitCliArchive();
    Map<String, Run> runs = new LinkedHashMap<>();
    String log = "-Xlog:class+load=info:stdout:none";
    runs.put("java Hello", withJvmFlag(hello(), log));
    runs.put("warm CLI before", withJvmFlag(cliBefore(before, REQUEST), log));
    Run after1 = cliAfter(after, REQUEST, true);
    runs.put(
        "warm CLI after",
        new Run(after1.command(), Map.of("LIFECYCLE_EXAMPLE_JAVA_OPTS", log), ""));
    runs.put("ProcessTree spawn-wait-close after", withJvmFlag(spawnExit(afterLibCp, "tree"), log));
    for (Map.Entry<String, Run> entry : runs.entrySet()) {
      String out = output(entry.getValue());
      long all = out.lines().filter(l -> l.contains(" source: ")).count();
      long jna = out.lines().filter(l -> l.startsWith("com.sun.jna.")).count();
      long posix = out.lines().filter(l -> l.startsWith("dev.lifecycle.posix.")).count();
      long lifecycle = out.lines().filter(l -> l.startsWith("dev.lifecycle.")).count();
      long archived = out.lines().filter(l -> l.contains("shared objects file")).count();
      System.out.printf(
          Locale.ROOT,
          "[classes] %-36s %5d classes (%d from a CDS archive), %d dev.lifecycle, %d posix, %d JNA%n",
          entry.getKey(),
          all,
          archived,
          lifecycle,
          posix,
          jna);
    }
  }

  private static Run withJvmFlag(Run run, String flag) {
    List<String> command = new ArrayList<>(run.command());
    command.add(1, flag);
    return new Run(command, run.env(), "");
  }

  private Sample run(Run run) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(run.command()).redirectErrorStream(true);
    builder.environment().putAll(run.env());
    double cpuBefore = childrenCpu();
    long start = System.nanoTime();
    Process process = builder.start();
    byte[] out = process.getInputStream().readAllBytes();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("timed out: " + run.command());
    }
    long ended = System.nanoTime();
    double wall = (ended - start) / 1e9;
    double cpu = childrenCpu() - cpuBefore;
    String text = new String(out, StandardCharsets.UTF_8);
    if (process.exitValue() != 0 || !text.contains(run.expect())) {
      throw new IllegalStateException(
          "exit " + process.exitValue() + " of " + run.command() + ":\n" + text);
    }
    double close = -1;
    double exit = -1;
    for (String line : text.split("\n")) {
      if (line.startsWith("close_ns=")) {
        close = Long.parseLong(line.substring(9).trim()) / 1e6;
      } else if (line.startsWith("end_ns=")) {
        exit = (ended - Long.parseLong(line.substring(7).trim())) / 1e6;
      } else if (line.startsWith("left=")) {
        killLeftChild(Long.parseLong(line.substring(5).trim()));
      }
    }
    return new Sample(wall, cpu, close, exit);
  }

  /** Kills the {@code sleep 30} a "leave" program started, by pid (it is ours), and waits. */
  private static void killLeftChild(long pid) throws InterruptedException {
    ProcessHandle.of(pid)
        .filter(h -> h.info().command().map(c -> c.endsWith("sleep")).orElse(false))
        .ifPresent(ProcessHandle::destroyForcibly);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (ProcFs.stat(pid).map(p -> !p.hasExited()).orElse(false)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("left child " + pid + " did not end");
      }
      Thread.sleep(5);
    }
  }

  private String output(Run run) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(run.command()).redirectErrorStream(true);
    builder.environment().putAll(run.env());
    Process process = builder.start();
    byte[] out = process.getInputStream().readAllBytes();
    process.waitFor(60, TimeUnit.SECONDS);
    return new String(out, StandardCharsets.UTF_8);
  }

  private static double childrenCpu() {
    Memory usage = new Memory(144);
    usage.clear();
    C.INSTANCE.getrusage(-1, usage); // RUSAGE_CHILDREN
    return usage.getLong(0) + usage.getLong(8) / 1e6 + usage.getLong(16) + usage.getLong(24) / 1e6;
  }

  /** Asks the workspace's broker to shut down, then waits until no process carries it. */
  private void stop(Path workspace) throws Exception {
    if (!Files.isDirectory(workspace)) {
      return;
    }
    ProcessBuilder shutdown = new ProcessBuilder(cliAfter(workspace, SHUTDOWN, true).command());
    // a shutdown request to a workspace without a broker would start one: only ask a live one
    if (!ProcFs.findByEnvironment(DIRECTORY_VARIABLE, workspace.toString()).isEmpty()) {
      Process p = shutdown.redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      p.waitFor(30, TimeUnit.SECONDS);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!ProcFs.findByEnvironment(DIRECTORY_VARIABLE, workspace.toString()).isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the broker of " + workspace + " did not go away");
      }
      Thread.sleep(20);
    }
  }

  private void stopBrokers() throws Exception {
    for (Path workspace : workspaces) {
      stop(workspace);
    }
    System.out.println("[whole] every broker started here is gone");
  }

  private static double[] wall(List<Sample> samples) {
    return samples.stream().mapToDouble(Sample::wall).toArray();
  }

  private static double[] cpu(List<Sample> samples) {
    return samples.stream().mapToDouble(Sample::cpu).toArray();
  }
}
