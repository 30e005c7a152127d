package dev.lifecycle.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.record.ReadResult;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.testing.Await;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SIGKILL at random phases of a cold start, seeded and bounded ({@code -Pfaults}; figures in
 * docs/RELIABILITY.md). Each trial: K clients released at once against an empty store, one SIGKILL
 * to a client, the broker, a backend process or the tether, either after a random delay or the
 * moment a chosen phase boundary is seen (the broker appears, the backend appears, the record is
 * published, the first client is served, the shutdown was asked for); then the next client must be
 * served, exactly one broker may remain, the record must name it, and after its shutdown nothing
 * carrying the trial's marker may survive and no file but the two lock files may remain. {@code
 * -Dfaults.load=N} keeps N busy loops running for the whole campaign (a busy machine). Only
 * processes carrying this trial's marker (or the load's) are ever signalled, by identity.
 */
@Tag("faults")
class FaultCampaignTest {
  private static final ProcessPlatform OS = ProcessPlatform.get();
  private static final String MARK = "LIFECYCLE_FAULTS_MARK";
  private static final String NAME = "faulted";

  enum Target {
    CLIENT,
    BROKER,
    BACKEND,
    TETHER
  }

  /** When the kill is sent: after a random delay, or the moment a phase boundary is seen. */
  enum Anchor {
    RANDOM_DELAY,
    BROKER_APPEARS,
    BACKEND_APPEARS,
    RECORD_PUBLISHED,
    FIRST_SERVED,
    SHUTDOWN_ASKED;

    /** The boundaries at which the target can exist (a client is gone once shutdown is asked). */
    static List<Anchor> forTarget(Target target) {
      return switch (target) {
        case CLIENT -> List.of(RANDOM_DELAY, BROKER_APPEARS, BACKEND_APPEARS, RECORD_PUBLISHED);
        case BROKER, TETHER -> List.of(values());
        case BACKEND ->
            List.of(RANDOM_DELAY, BACKEND_APPEARS, RECORD_PUBLISHED, FIRST_SERVED, SHUTDOWN_ASKED);
      };
    }
  }

  private static final List<String> BROKER_OPTIONS =
      List.of(
          "-Dlifecycle.broker.idleTimeout=30s",
          "-Dlifecycle.broker.backendGrace=200ms",
          "-Dlifecycle.tether.grace=300ms");

  @Test
  @Timeout(value = 3, unit = TimeUnit.HOURS)
  void sigkillAtRandomPhasesOfAColdStart() throws Exception {
    long seed = Long.getLong("faults.seed", 17);
    // A trial counts for its target only when the kill landed (a client may finish before its
    // moment comes): the campaign runs until every target has its count, bounded at 3x.
    int perTargetGoal = Integer.getInteger("faults.coldStartTrialsPerTarget", 5);
    List<Target> targets = targets(System.getProperty("faults.coldStartTargets", ""));
    int maxTrials = 3 * perTargetGoal * targets.size();
    Random random = new Random(seed);
    Map<Target, int[]> perTarget = new EnumMap<>(Target.class); // trials, failures
    targets.forEach(target -> perTarget.put(target, new int[2]));
    Map<String, Integer> phases = new TreeMap<>();
    List<String> failures = new ArrayList<>();
    int trials = 0;
    List<ProcessIdentity> load = startLoad(Integer.getInteger("faults.load", 0));
    try {
      for (int next = 0; trials < maxTrials; trials++) {
        List<Target> short_ =
            targets.stream().filter(target -> perTarget.get(target)[0] < perTargetGoal).toList();
        if (short_.isEmpty()) {
          break;
        }
        Target target = short_.get(next++ % short_.size());
        int trial = trials;
        int clients = 2 + random.nextInt(4); // K = 2-5
        long delayMillis = random.nextInt(2500);
        // Half the trials at a random moment, half at a phase boundary the target can live through.
        List<Anchor> anchors = Anchor.forTarget(target);
        Anchor anchor =
            random.nextBoolean()
                ? Anchor.RANDOM_DELAY
                : anchors.get(1 + random.nextInt(anchors.size() - 1));
        Trial t = new Trial(trial, target, clients, delayMillis, anchor);
        List<String> problems = t.run();
        if (t.killed.startsWith("no ")) {
          phases.merge("no-kill:" + target, 1, Integer::sum);
          System.out.println("trial " + trial + " " + t + " -> no kill");
          continue;
        }
        perTarget.get(target)[0]++;
        phases.merge(target + "@" + t.phase, 1, Integer::sum);
        phases.merge(target + "#" + anchor, 1, Integer::sum);
        if (!problems.isEmpty()) {
          perTarget.get(target)[1]++;
          failures.add("trial " + trial + " " + t + ": " + problems);
        }
        System.out.println(
            "trial " + trial + " " + t + " -> " + (problems.isEmpty() ? "ok" : problems));
        report("cold-start", summary(seed, trial + 1, perTarget, phases, failures));
      }
    } finally {
      load.forEach(busy -> OS.signal(busy, Signal.KILL));
    }
    for (Target target : targets) {
      assertThat(perTarget.get(target)[0])
          .as("kills that landed on %s within %d trials", target, maxTrials)
          .isGreaterThanOrEqualTo(perTargetGoal);
    }
    String summary = summary(seed, trials, perTarget, phases, failures);
    assertThat(failures).as(summary).isEmpty();
  }

  /** N busy loops, one per process, for a busy machine; the caller ends them by identity. */
  private static List<ProcessIdentity> startLoad(int loops) throws IOException {
    List<ProcessIdentity> started = new ArrayList<>();
    for (int i = 0; i < loops; i++) {
      Process busy =
          new ProcessBuilder("sh", "-c", "while :; do :; done")
              .redirectOutput(Redirect.DISCARD)
              .redirectError(Redirect.DISCARD)
              .start();
      started.add(OS.identify(busy.pid()).orElseThrow());
    }
    return started;
  }

  /** The targets named in a comma-separated list, or all of them for an empty one. */
  private static List<Target> targets(String names) {
    if (names.isBlank()) {
      return List.of(Target.values());
    }
    return java.util.Arrays.stream(names.split(","))
        .map(name -> Target.valueOf(name.trim().toUpperCase(java.util.Locale.ROOT)))
        .distinct()
        .toList();
  }

  private static String summary(
      long seed,
      int trials,
      Map<Target, int[]> perTarget,
      Map<String, Integer> phases,
      List<String> failures) {
    StringBuilder summary = new StringBuilder();
    summary.append("seed ").append(seed).append(", trials ").append(trials).append('\n');
    perTarget.forEach(
        (k, v) ->
            summary
                .append(k)
                .append(": ")
                .append(v[0])
                .append(" trials, ")
                .append(v[1])
                .append(" failed\n"));
    summary.append("phases hit: ").append(phases).append('\n');
    failures.forEach(f -> summary.append(f).append('\n'));
    return summary.toString();
  }

  @Test
  @Timeout(value = 1, unit = TimeUnit.HOURS)
  void aStoppedBrokerIsLeftAloneAndNamed() throws Exception {
    int trials = Integer.getInteger("faults.stopTrials", 5);
    List<String> failures = new ArrayList<>();
    long slowest = 0;
    for (int trial = 0; trial < trials; trial++) {
      Path dir = Files.createTempDirectory("faults-stop-");
      String mark = UUID.randomUUID().toString();
      try {
        RecordStore store = RecordStore.open(dir.resolve("store"));
        BrokerClient client =
            BrokerClient.builder()
                .store(store)
                .name(NAME)
                .command(
                    () -> {
                      ProcessBuilder b = Brokers.command(store.directory(), NAME, BROKER_OPTIONS);
                      b.environment().put(MARK, mark);
                      return b;
                    })
                .readyTimeout(dev.lifecycle.time.Limit.ofSeconds(30))
                .build();
        BrokerSession serving = client.ensure();
        ProcessIdentity broker = OS.identify(serving.pid()).orElseThrow();
        OS.signal(broker, Signal.STOP);
        long t0 = System.nanoTime();
        try (BrokerConnection unexpected = client.connection()) {
          failures.add("trial " + trial + ": a stopped broker greeted");
        } catch (BrokerException e) {
          if (e.pid().orElse(0) != broker.pid()
              || !e.getMessage().contains("pid " + broker.pid())) {
            failures.add("trial " + trial + ": failure does not name the broker: " + e);
          }
        }
        slowest = Math.max(slowest, since(t0).toMillis());
        if (OS.probe(broker) != dev.lifecycle.process.Liveness.ALIVE
            || !store
                .look(NAME)
                .record()
                .map(r -> r.owner().equals(serving.record().owner()))
                .orElse(false)) {
          failures.add("trial " + trial + ": the stopped broker or its record was touched");
        }
        if (OS.findByEnvironment(MARK, mark).stream()
                .map(pid -> OS.commandLine(pid).map(c -> String.join(" ", c)).orElse(""))
                .filter(c -> c.contains(TestBrokerMain.class.getName()))
                .count()
            != 1) {
          failures.add("trial " + trial + ": a second broker was started");
        }
        OS.signal(broker, Signal.CONT);
        try (BrokerConnection c = client.connection()) {
          Brokers.send(c, "shutdown");
        }
        Await.within(Duration.ofSeconds(20), () -> OS.findByEnvironment(MARK, mark).isEmpty());
      } finally {
        for (long pid : OS.findByEnvironment(MARK, mark)) {
          OS.identify(pid).ifPresent(id -> OS.signal(id, Signal.KILL));
        }
        deleteTree(dir);
      }
    }
    String row =
        trials
            + " trials: failures "
            + failures.size()
            + ", slowest failure reported after "
            + slowest
            + " ms"
            + (failures.isEmpty() ? "" : "\n" + String.join("\n", failures));
    report("sigstop", row);
    assertThat(failures).isEmpty();
  }

  static void report(String row, String text) throws IOException {
    FaultReport.write(row, text);
  }

  /** One seeded trial in a store of its own. */
  private static final class Trial {
    final int index;
    final Target target;
    final int clients;
    final long delayMillis;
    final Anchor anchor;
    final String mark = UUID.randomUUID().toString();
    String phase = "?";
    String killed = "nothing";

    Trial(int index, Target target, int clients, long delayMillis, Anchor anchor) {
      this.index = index;
      this.target = target;
      this.clients = clients;
      this.delayMillis = delayMillis;
      this.anchor = anchor;
    }

    List<String> run() throws Exception {
      List<String> problems = new ArrayList<>();
      Path dir = Files.createTempDirectory("faults-");
      Path store = dir.resolve("store");
      RecordStore records = RecordStore.open(store);
      Path gate = dir.resolve("gate");
      List<Process> started = new ArrayList<>();
      try {
        for (int i = 0; i < clients; i++) {
          started.add(client(store, gate).start());
        }
        Files.createFile(gate);
        if (anchor == Anchor.SHUTDOWN_ASKED) {
          return shutdownThenKill(store, gate, started, records, problems);
        }
        if (anchor == Anchor.RANDOM_DELAY) {
          Thread.sleep(delayMillis); // the random moment of the fault: a window, not a wait
        } else if (!awaitBoundary(started, records)) {
          killed = "no " + target + " to kill (boundary " + anchor + " not seen within 30 s)";
          return problems;
        }
        kill(started, records);
        if (killed.startsWith("no ")) {
          return problems; // nothing was killed: not a fault trial (counted apart)
        }
        for (Process p : started) {
          if (!p.waitFor(90, TimeUnit.SECONDS)) {
            problems.add("a client did not exit within 90 s");
          }
        }
        // The next client: must be served whatever the kill hit.
        Process next = client(store, gate).start();
        String out = new String(next.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!next.waitFor(90, TimeUnit.SECONDS) || !out.startsWith("SERVED ")) {
          problems.add("next client not served: " + out.trim() + " exit " + exitOf(next));
          return problems;
        }
        long servedBy = Long.parseLong(out.trim().split(" ")[1]);
        // Exactly one broker once a losing starter (if any) has refused and exited.
        List<Long> brokers =
            Await.within(Duration.ofSeconds(15), this::brokers, b -> b.size() <= 1);
        if (brokers.size() != 1) {
          problems.add("brokers serving after 15 s: " + brokers);
        }
        ReadResult seen = records.look(NAME);
        if (!seen.isValid() || seen.record().orElseThrow().owner().pid() != servedBy) {
          problems.add("record does not name the serving broker " + servedBy + ": " + seen);
        }
        try (BrokerConnection c = BrokerConnection.open(seen.record().orElseThrow().endpoint())) {
          Brokers.send(c, "shutdown");
        } catch (IOException | RuntimeException e) {
          problems.add("shutdown request failed: " + e);
        }
        // No orphaned tree: everything of this trial ends within the bound.
        return withLeftovers(problems, store, "20 s");
      } finally {
        for (Process p : started) {
          p.destroyForcibly();
        }
        for (long pid : marked()) {
          OS.identify(pid).ifPresent(id -> OS.signal(id, Signal.KILL)); // identity-checked
        }
        deleteTree(dir);
      }
    }

    /** Polls (tightly: a boundary passes in milliseconds) until this trial's anchor is reached. */
    private boolean awaitBoundary(List<Process> clientProcesses, RecordStore records)
        throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline) {
        boolean reached =
            switch (anchor) {
              case BROKER_APPEARS -> !brokers().isEmpty();
              case BACKEND_APPEARS -> !withCommand("sleep 30").isEmpty();
              case RECORD_PUBLISHED -> Files.exists(records.recordFile(NAME));
              case FIRST_SERVED ->
                  clientProcesses.stream().anyMatch(p -> !p.isAlive() && p.exitValue() == 0);
              case RANDOM_DELAY, SHUTDOWN_ASKED -> true;
            };
        if (reached) {
          return true;
        }
        Thread.sleep(1);
      }
      return false;
    }

    /**
     * The STOPPING boundary: every client served, the shutdown asked for, and the target killed the
     * moment the request is sent; then nothing of the trial may remain, and a fresh client must be
     * served by a fresh broker (then shut down too).
     */
    private List<String> shutdownThenKill(
        Path store, Path gate, List<Process> started, RecordStore records, List<String> problems)
        throws Exception {
      for (Process p : started) {
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
          problems.add("a client did not exit within 90 s");
        }
      }
      ReadResult seen = records.look(NAME);
      if (!seen.isValid()) {
        killed = "no " + target + " to kill (no record to shut down: " + seen + ")";
        return problems;
      }
      phase = "shutdown-asked";
      try (BrokerConnection c = BrokerConnection.open(seen.record().orElseThrow().endpoint())) {
        Brokers.send(c, "shutdown"); // no reply awaited: the kill races the shutdown
        kill(List.of(), records);
      } catch (IOException | RuntimeException e) {
        problems.add("shutdown request failed: " + e);
      }
      if (killed.startsWith("no ")) {
        return problems;
      }
      Set<Long> left = Await.within(Duration.ofSeconds(20), this::marked, Set::isEmpty);
      if (!left.isEmpty()) {
        problems.add("orphaned after 20 s: " + describe(left));
      }
      Process next = client(store, gate).start();
      String out = new String(next.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!next.waitFor(90, TimeUnit.SECONDS) || !out.startsWith("SERVED ")) {
        problems.add("next client not served: " + out.trim() + " exit " + exitOf(next));
        return problems;
      }
      ReadResult fresh = records.look(NAME);
      try (BrokerConnection c = BrokerConnection.open(fresh.record().orElseThrow().endpoint())) {
        Brokers.send(c, "shutdown");
      } catch (IOException | RuntimeException e) {
        problems.add("second shutdown request failed: " + e);
      }
      return withLeftovers(problems, store, "the second shutdown");
    }

    /**
     * {@code problems} with what of this trial outlives its shutdown: processes still marked after
     * 20 s, then files left in {@code store}.
     */
    private List<String> withLeftovers(List<String> problems, Path store, String after)
        throws IOException {
      Set<Long> left = Await.within(Duration.ofSeconds(20), this::marked, Set::isEmpty);
      if (!left.isEmpty()) {
        problems.add("orphaned after " + after + ": " + describe(left));
      }
      List<String> litter = litter(store);
      if (!litter.isEmpty()) {
        problems.add("litter: " + litter);
      }
      return problems;
    }

    private ProcessBuilder client(Path store, Path gate) {
      List<String> command = new ArrayList<>();
      command.add(Brokers.java());
      command.add("-XX:TieredStopAtLevel=1");
      command.add("-XX:+UseSerialGC");
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(TestClientMain.class.getName());
      command.add(store.toString());
      command.add(NAME);
      command.add(gate.toString());
      command.addAll(BROKER_OPTIONS);
      ProcessBuilder b = new ProcessBuilder(command).redirectError(Redirect.DISCARD);
      b.environment().put(MARK, mark);
      return b;
    }

    private String phaseOf(RecordStore records) {
      if (Files.exists(records.recordFile(NAME))) {
        return "record-published";
      }
      if (!withCommand("sleep 30").isEmpty()) {
        return "backend-spawned";
      }
      return brokers().isEmpty() ? "before-broker" : "broker-starting";
    }

    /**
     * SIGKILLs one process of the target kind; if none exists yet, polls for the first one and
     * kills it the moment it appears (that is how the early phases of a cold start are hit).
     */
    private void kill(List<Process> clientProcesses, RecordStore records) throws Exception {
      // Once a shutdown is asked for, the targets leave within their grace: a short window.
      long window = anchor == Anchor.SHUTDOWN_ASKED ? 2 : 20;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(window);
      while (System.nanoTime() < deadline) {
        List<Long> candidates =
            switch (target) {
              case CLIENT -> spawnerFirst(clientProcesses);
              case BROKER -> brokers();
              case BACKEND -> withCommand("sleep 30");
              case TETHER -> withCommand("tether");
            };
        if (target == Target.CLIENT && candidates.isEmpty()) {
          break; // every client already finished: there is nothing left to kill
        }
        if (!candidates.isEmpty()) {
          phase = phaseOf(records);
          long pid = candidates.get(0);
          Optional<ProcessIdentity> id = OS.identify(pid);
          if (id.isPresent() && OS.signal(id.get(), Signal.KILL) == SignalResult.DELIVERED) {
            killed = target + " " + pid;
            return;
          }
        }
        Thread.sleep(2); // a fixed, tight pace: the kill must land the moment a target appears
      }
      killed = "no " + target + " to kill (none alive, or none appeared within " + window + " s)";
    }

    /** Live clients, the one that spawned a broker (its parent, the start-lock holder) first. */
    private List<Long> spawnerFirst(List<Process> clientProcesses) {
      List<Long> alive =
          new ArrayList<>(
              clientProcesses.stream().filter(Process::isAlive).map(Process::pid).toList());
      for (long broker : brokers()) {
        ProcessHandle.of(broker)
            .flatMap(ProcessHandle::parent)
            .map(ProcessHandle::pid)
            .filter(alive::contains)
            .ifPresent(
                spawner -> {
                  alive.remove(spawner);
                  alive.add(0, spawner);
                });
      }
      return alive;
    }

    private List<Long> brokers() {
      return withCommand(TestBrokerMain.class.getName());
    }

    private List<Long> withCommand(String part) {
      List<Long> pids = new ArrayList<>();
      for (long pid : marked()) {
        String line = OS.commandLine(pid).map(c -> String.join(" ", c)).orElse("");
        if (line.contains(part)) {
          pids.add(pid);
        }
      }
      pids.sort(Comparator.naturalOrder());
      return pids;
    }

    private Set<Long> marked() {
      return OS.findByEnvironment(MARK, mark).stream()
          .filter(pid -> OS.identify(pid).map(id -> !isZombie(id)).orElse(false))
          .collect(Collectors.toSet());
    }

    private static boolean isZombie(ProcessIdentity id) {
      return OS.probe(id) == dev.lifecycle.process.Liveness.GONE;
    }

    private String describe(Set<Long> pids) {
      return pids.stream()
          .map(pid -> pid + " " + OS.commandLine(pid).map(c -> String.join(" ", c)).orElse("?"))
          .map(s -> s.length() > 120 ? s.substring(0, 120) : s)
          .collect(Collectors.joining("; "));
    }

    private static List<String> litter(Path store) throws IOException {
      try (Stream<Path> files = Files.list(store)) {
        return files
            .map(p -> p.getFileName().toString())
            .filter(n -> !n.equals(NAME + ".lock") && !n.equals(NAME + ".start-lock"))
            .sorted()
            .toList();
      }
    }

    private static String exitOf(Process p) {
      return p.isAlive() ? "(running)" : Integer.toString(p.exitValue());
    }

    @Override
    public String toString() {
      return "["
          + target
          + ", K="
          + clients
          + ", "
          + (anchor == Anchor.RANDOM_DELAY ? "+" + delayMillis + " ms" : "at " + anchor)
          + ", "
          + phase
          + ", killed "
          + killed
          + "]";
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  static Duration since(long nanos) {
    return Duration.ofNanos(System.nanoTime() - nanos);
  }
}
