package dev.lifecycle.examples;

import dev.lifecycle.examples.broker.BrokerCommand;
import dev.lifecycle.examples.broker.ExampleJson;
import dev.lifecycle.examples.cli.Cli;
import dev.lifecycle.examples.worker.ExampleWorker;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.testing.Await;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeMember;
import dev.lifecycle.tree.TreeOptions;
import dev.lifecycle.worker.JobFile;
import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * The main demo: the two incidents behind the library, replayed with small limits.
 *
 * <ol>
 *   <li>(a) five concurrent client calls against a cold broker: success, error, a caller killed
 *       mid-call, a caller whose stdout is a closed pipe; one broker is started for all of them.
 *   <li>(b) the broker's backend has MCP servers that ignore SIGTERM: the shutdown pass SIGKILLs
 *       them after the grace.
 *   <li>(c) a detached worker past its ceiling completes during the grace: it stays EXPIRED.
 *   <li>(d) a broker killed with SIGKILL: the tether ends its backend tree, the next client
 *       reclaims the dead broker's record and starts a new one.
 *   <li>(e) the same backend without the library ({@code Process.destroy()}): the leak, then the
 *       demo cleans up after itself.
 * </ol>
 *
 * Every process the demo started, directly or not, is tracked by identity (pid + start time) and
 * must be gone at the end; the demo says so and exits 1 otherwise. Records and job files live in a
 * private temporary directory, removed at the end.
 */
public final class Demo {
  private static final Duration CLI_BOUND = Duration.ofSeconds(20);

  private final ProcessPlatform os = ProcessPlatform.get();
  private final Map<Long, Tracked> tracked = new LinkedHashMap<>();
  private final Path root;

  /** One process the demo knows it caused. */
  private record Tracked(String scenario, String role, ProcessIdentity identity) {}

  /** One finished client call. */
  private record Call(String what, int exit, String stdout, long millis) {}

  private Demo(Path root) {
    this.root = root;
  }

  public static void main(String[] args) throws Exception {
    // Small limits for every JVM the demo starts (forwarded as -D options by BrokerCommand).
    System.setProperty("lifecycle.broker.idleTimeout", "5s");
    System.setProperty("lifecycle.broker.backendGrace", "1s");
    System.setProperty("lifecycle.broker.startupTimeout", "15s");
    System.setProperty("lifecycle.tether.grace", "1s");
    System.setProperty("example.cli.timeout", "15s");
    Path root = Files.createTempDirectory("lifecycle-demo-"); // 0700
    long started = System.nanoTime();
    boolean clean;
    Demo demo = new Demo(root);
    try {
      demo.concurrentCallsOnColdBroker();
      demo.backendIgnoringSigterm();
      demo.workerPastItsCeiling();
      demo.brokerKilledAndReclaimed();
      demo.withoutTheLibrary();
    } catch (Exception | AssertionError e) {
      System.out.println("\nDEMO STEP FAILED: " + e);
    } finally {
      clean = demo.finalTable();
      deleteRecursively(root);
    }
    System.out.printf(
        "%n%s (%.1f s); %s removed%n",
        clean
            ? "every process the demo started is gone"
            : "SOME PROCESSES THE DEMO STARTED SURVIVED",
        (System.nanoTime() - started) / 1e9,
        root);
    System.exit(clean ? 0 : 1);
  }

  // (a) -----------------------------------------------------------------------------------------

  private void concurrentCallsOnColdBroker() throws Exception {
    heading("(a) five concurrent calls against a cold broker");
    Path ws = root.resolve("workspace-a");
    List<String> requests =
        List.of(
            "{\"op\":\"call\",\"tool\":\"echo\",\"args\":{\"hello\":\"world\"}}",
            "{\"op\":\"status\"}",
            "{\"op\":\"fail\"}",
            "{\"op\":\"slow\",\"ms\":10000}",
            "{\"op\":\"call\",\"tool\":\"echo\",\"args\":\"to a closed pipe\"}");
    List<String> roles = List.of("echo", "status", "fail", "slow, caller killed", "broken pipe");
    List<ProcessTree> clis = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < requests.size(); i++) {
      ProcessTree cli = spawnCli(ws, requests.get(i), "a", "cli " + roles.get(i));
      clis.add(cli);
    }
    clis.get(4).leader().getInputStream().close(); // the reader went away: | head -0
    // Callers 0-2 finish by themselves; once they have, the slow call is in flight: kill its
    // caller.
    List<Call> calls = new ArrayList<>();
    for (int i : new int[] {0, 1, 2, 4}) {
      calls.add(finish(clis.get(i), roles.get(i), t0));
    }
    os.signal(clis.get(3).leaderIdentity(), Signal.KILL);
    calls.add(3, finish(clis.get(3), roles.get(3), t0));
    System.out.printf("%-22s %5s %8s  %s%n", "call", "exit", "ms", "stdout");
    calls.forEach(
        c -> System.out.printf("%-22s %5d %8d  %s%n", c.what, c.exit, c.millis, c.stdout));
    Map<?, ?> status = (Map<?, ?>) ExampleJson.parse(calls.get(1).stdout);
    trackBroker(status, "a");
    System.out.println(
        "one broker (pid "
            + status.get("pid")
            + ") served all five; exits: 0 ok, 1 error reply, 137 = SIGKILLed caller, "
            + Cli.BROKEN_PIPE
            + " = EPIPE on stdout (quiet)");
  }

  // (b) -----------------------------------------------------------------------------------------

  private void backendIgnoringSigterm() throws Exception {
    heading("(b) a backend whose MCP servers ignore SIGTERM");
    Path ws = root.resolve("workspace-a");
    List<ProcessIdentity> backend = roleIdentities("a", "backend");
    System.out.println("asking the broker to shut down; backend processes: " + pids(backend));
    Call call = finish(spawnCli(ws, "{\"op\":\"shutdown\"}", "b", "cli shutdown"), "shutdown", 0);
    System.out.println("shutdown call: exit " + call.exit + ", " + call.stdout);
    long brokerPid = roleIdentities("a", "broker").get(0).pid();
    await("broker of (a) gone", Duration.ofSeconds(10), () -> gone(roleIdentities("a", "broker")));
    System.out.println("broker " + brokerPid + " exited; its report (broker.log):");
    System.out.println(
        "  "
            + lastLine(ws.resolve("broker.log"), "stopped: ShutdownReport")
                .replaceFirst(".*stopped: ", ""));
    System.out.println(
        "  -> SIGTERM to the whole group, SIGKILL after the 1 s grace for the two that ignored it");
    System.out.println("backend gone: " + gone(backend));
  }

  // (c) -----------------------------------------------------------------------------------------

  private void workerPastItsCeiling() throws Exception {
    heading("(c) a worker past its ceiling completes during the grace");
    Path jobs = Files.createDirectories(root.resolve("jobs"));
    Path expired = jobs.resolve("expires.job");
    Path completes = jobs.resolve("completes.job");
    // Ceiling 1 s, work 1.8 s (it ends inside the 1.5 s grace), helper ignores SIGTERM.
    ProcessTree late =
        spawn(
            ExampleWorker.command(
                expired,
                Duration.ofMillis(1800),
                false,
                List.of("-Dlifecycle.worker.ceiling=1s", "-Dlifecycle.worker.grace=1500ms")),
            "c",
            "worker (ceiling 1s)");
    ProcessTree quick =
        spawn(
            ExampleWorker.command(
                completes,
                Duration.ofMillis(300),
                false,
                List.of("-Dlifecycle.worker.ceiling=20s")),
            "c",
            "worker (ceiling 20s)");
    trackHelper(late, "c");
    trackHelper(quick, "c");
    for (ProcessTree worker : List.of(late, quick)) {
      if (!worker.leader().waitFor(15, TimeUnit.SECONDS)) {
        throw new AssertionError("worker " + worker.leader().pid() + " still running");
      }
    }
    System.out.printf("%-22s %5s  %-10s %s%n", "job", "exit", "status", "reason");
    for (Object[] row :
        new Object[][] {
          {"work 1.8s, ceiling 1s", late, expired}, {"work 0.3s", quick, completes}
        }) {
      ProcessTree tree = (ProcessTree) row[1];
      JobFile.JobState state = JobFile.inspect((Path) row[2]);
      System.out.printf(
          "%-22s %5d  %-10s %s%n",
          row[0], tree.leader().exitValue(), state.record().status(), state.record().reason());
    }
    System.out.println(
        "the late job's completion lost to the latched EXPIRED; exit 124 like coreutils timeout");
  }

  // (d) -----------------------------------------------------------------------------------------

  private void brokerKilledAndReclaimed() throws Exception {
    heading("(d) a broker killed with SIGKILL, reclaimed by the next client");
    Path ws = root.resolve("workspace-d");
    Call first = finish(spawnCli(ws, "{\"op\":\"status\"}", "d", "cli status"), "status", 0);
    Map<?, ?> status = (Map<?, ?>) ExampleJson.parse(first.stdout);
    trackBroker(status, "d");
    ProcessIdentity broker = roleIdentities("d", "broker").get(0);
    List<ProcessIdentity> backend = roleIdentities("d", "backend");
    System.out.println("broker " + broker.pid() + ", backend " + pids(backend) + ": SIGKILL");
    os.signal(broker, Signal.KILL); // no shutdown hook, no pass: only the tether is left
    long t0 = System.nanoTime();
    await("backend ended by the tether", Duration.ofSeconds(10), () -> gone(backend));
    System.out.printf(
        "the tether ended the orphaned backend in %d ms (grace 1 s)%n",
        (System.nanoTime() - t0) / 1_000_000);
    Call next =
        finish(
            spawnCli(ws, "{\"op\":\"call\",\"tool\":\"echo\",\"args\":42}", "d", "cli echo"),
            "echo",
            0);
    Call after = finish(spawnCli(ws, "{\"op\":\"status\"}", "d", "cli status"), "status", 0);
    Map<?, ?> second = (Map<?, ?>) ExampleJson.parse(after.stdout);
    trackBroker(second, "d");
    System.out.println(
        "next client: exit "
            + next.exit
            + ", result "
            + next.stdout
            + "; the dead broker's record was reclaimed and broker "
            + second.get("pid")
            + " started");
    finish(spawnCli(ws, "{\"op\":\"shutdown\"}", "d", "cli shutdown"), "shutdown", 0);
    await("broker of (d) gone", Duration.ofSeconds(10), () -> gone(roleIdentities("d", "broker")));
  }

  // (e) -----------------------------------------------------------------------------------------

  private void withoutTheLibrary() throws Exception {
    heading("(e) the same backend without the library: ProcessBuilder + destroy()");
    Process plain =
        new ProcessBuilder(
                "sh",
                "-c",
                "sleep 600 & (trap '' TERM; exec sleep 601) & (trap '' TERM; exec sleep 602) & wait")
            .redirectInput(Redirect.from(new File("/dev/null")))
            .redirectOutput(Redirect.DISCARD)
            .redirectError(Redirect.DISCARD)
            .start();
    await("children started", Duration.ofSeconds(5), () -> plain.descendants().count() >= 3);
    track("e", "plain sh", plain.pid());
    plain.descendants().forEach(h -> track("e", "plain child", h.pid()));
    plain.destroy(); // SIGTERM to sh only
    plain.waitFor(5, TimeUnit.SECONDS);
    List<ProcessIdentity> children = roleIdentities("e", "plain child");
    List<Long> alive =
        children.stream()
            .filter(id -> os.probe(id).mayBeRunning())
            .map(ProcessIdentity::pid)
            .toList();
    System.out.println(
        "sh exited; its children still running (re-parented, nobody will end them): " + alive);
    for (ProcessIdentity child : children) {
      os.signal(child, Signal.KILL); // identity-checked: a reused pid is never hit
    }
    await("leaked children cleaned up", Duration.ofSeconds(5), () -> gone(children));
    System.out.println("cleaned up by the demo with an identity-checked SIGKILL each");
  }

  // ---------------------------------------------------------------------------------------------

  private ProcessTree spawnCli(Path ws, String request, String scenario, String role)
      throws IOException {
    ProcessBuilder builder =
        BrokerCommand.javaCommand(Cli.class, List.of(ws.toString(), request))
            .redirectInput(Redirect.from(new File("/dev/null")))
            .redirectError(Redirect.DISCARD);
    return spawn(builder, scenario, role);
  }

  private ProcessTree spawn(ProcessBuilder builder, String scenario, String role)
      throws IOException {
    ProcessTree tree = ProcessTree.spawn(os, builder, TreeOptions.defaults());
    tracked.put(tree.leader().pid(), new Tracked(scenario, role, tree.leaderIdentity()));
    return tree;
  }

  private Call finish(ProcessTree cli, String what, long t0) throws Exception {
    Process p = cli.leader();
    // Read stdout before waiting (a full pipe would stall the writer); closed pipes read as empty.
    String out;
    try {
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (IOException closed) {
      out = "";
    }
    if (!p.waitFor(CLI_BOUND.toSeconds(), TimeUnit.SECONDS)) {
      cli.terminate(Duration.ZERO);
      throw new AssertionError(what + " did not exit within " + CLI_BOUND);
    }
    long millis = (System.nanoTime() - (t0 == 0 ? System.nanoTime() : t0)) / 1_000_000;
    return new Call(what, p.exitValue(), out.isEmpty() ? "-" : out, millis);
  }

  private void trackBroker(Map<?, ?> status, String scenario) {
    track(scenario, "broker", ((Number) status.get("pid")).longValue());
    track(scenario, "tether sidecar", ((Number) status.get("tether")).longValue());
    for (Object pid : (List<?>) status.get("backend")) {
      track(scenario, "backend", ((Number) pid).longValue());
    }
  }

  /** Waits (bounded) for the worker's helper ({@code sleep}) to appear, and tracks it. */
  private void trackHelper(ProcessTree tree, String scenario) throws InterruptedException {
    await(
        "worker helper of " + tree.leader().pid(),
        Duration.ofSeconds(10),
        () -> !helpers(tree).isEmpty() || !tree.leader().isAlive());
    for (TreeMember m : helpers(tree)) {
      tracked.putIfAbsent(m.pid(), new Tracked(scenario, "worker helper", m.identity()));
    }
  }

  private static List<TreeMember> helpers(ProcessTree tree) {
    return tree.view().all().stream().filter(m -> m.command().equals("sleep")).toList();
  }

  private void track(String scenario, String role, long pid) {
    os.identify(pid).ifPresent(id -> tracked.putIfAbsent(pid, new Tracked(scenario, role, id)));
  }

  private List<ProcessIdentity> roleIdentities(String scenario, String role) {
    return tracked.values().stream()
        .filter(t -> t.scenario.equals(scenario) && t.role.equals(role))
        .map(Tracked::identity)
        .toList();
  }

  private boolean gone(List<ProcessIdentity> ids) {
    return ids.stream().allMatch(id -> os.probe(id) == Liveness.GONE);
  }

  private static List<Long> pids(List<ProcessIdentity> ids) {
    return ids.stream().map(ProcessIdentity::pid).toList();
  }

  /** Polls {@code condition} (bounded); never a blind sleep. */
  private static void await(String what, Duration bound, BooleanSupplier condition) {
    Await.until(bound, what, condition);
  }

  /** Every tracked process and its final state; waits (bounded) for stragglers. */
  private boolean finalTable() {
    heading("every process the demo started");
    List<ProcessIdentity> all = tracked.values().stream().map(Tracked::identity).toList();
    Await.within(Duration.ofSeconds(10), () -> gone(all)); // stragglers are reported below
    System.out.printf("%-4s %-22s %8s  %s%n", "", "role", "pid", "final state");
    boolean clean = true;
    for (Tracked t : tracked.values()) {
      Liveness now = os.probe(t.identity);
      clean &= now == Liveness.GONE;
      System.out.printf("(%s)  %-22s %8d  %s%n", t.scenario, t.role, t.identity.pid(), now);
    }
    return clean;
  }

  private static String lastLine(Path file, String prefix) throws IOException {
    try (Stream<String> lines = Files.lines(file)) {
      return lines.filter(l -> l.contains(prefix)).reduce((a, b) -> b).orElse("(no report)");
    }
  }

  private static void heading(String title) {
    System.out.println("\n== " + title);
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.out.println("could not remove " + root + ": " + e);
    }
  }
}
