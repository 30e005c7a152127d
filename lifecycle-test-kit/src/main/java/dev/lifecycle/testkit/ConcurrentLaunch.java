package dev.lifecycle.testkit;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Launches N processes at once behind a start gate and records exit codes, output, timings and
 * every descendant seen while they ran. Variants: cold (default) or warm ({@link
 * Builder#warmUp(Runnable)} runs first), broken pipe ({@link Builder#closeStdoutAfterFirstLine()}),
 * caller-killed ({@link Builder#killCallersOnceReady(int)}, or after a delay with {@link
 * Builder#killCallers(int, Duration)}). Every process is spawned through the {@link
 * ProcessPlatform} in a new session with one shared tree cookie, so descendants that escape are
 * still found by {@link LaunchReport#assertAllGone(Duration)}.
 *
 * <pre>{@code
 * LaunchReport report = ConcurrentLaunch.builder(command).count(8).build().run();
 * report.assertAllExitedWithin(Duration.ofSeconds(5)).assertAllGone(Duration.ofSeconds(3));
 * }</pre>
 */
public final class ConcurrentLaunch {
  /** Default bound on one run: generous for a loaded 2-core CI box, still fails a hang fast. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** How long output readers may drain after an exit: escapees may hold the pipe open forever. */
  static final Duration DRAIN = Duration.ofMillis(500);

  private static final Duration SAMPLE_EVERY = Duration.ofMillis(50);

  /** What {@link FixtureScript#ready()} prints first. */
  private static final String READY_WORD = "ready ";

  private final List<String> command;
  private final int count;
  private final Map<String, String> environment;
  private final Runnable warmUp;
  private final boolean closeStdoutEarly;
  private final int callersToKill;
  private final Duration killAfter;
  private final boolean killOnReady;
  private final Duration timeout;
  private final ProcessPlatform platform;

  private ConcurrentLaunch(Builder b) {
    this.command = List.copyOf(b.command);
    this.count = b.count;
    this.environment = Map.copyOf(b.environment);
    this.warmUp = b.warmUp;
    this.closeStdoutEarly = b.closeStdoutEarly;
    this.callersToKill = b.callersToKill;
    this.killAfter = b.killAfter;
    this.killOnReady = b.killOnReady;
    this.timeout = b.timeout;
    this.platform = b.platform != null ? b.platform : ProcessPlatform.get();
  }

  /**
   * A builder for launches of {@code command}.
   *
   * @param command the program and its arguments, not empty
   * @return a builder with 4 processes and the default platform
   * @throws IllegalArgumentException if {@code command} is empty
   */
  public static Builder builder(List<String> command) {
    return new Builder(command);
  }

  /**
   * Runs the launch; returns once every process exited or the timeout passed.
   *
   * @return one result per process and every descendant seen while they ran
   * @throws InterruptedException if the thread is interrupted while waiting for the processes
   */
  public LaunchReport run() throws InterruptedException {
    if (warmUp != null) {
      warmUp.run();
    }
    String cookie = SpawnOptions.newCookie();
    Set<ProcessIdentity> seen = ConcurrentHashMap.newKeySet();
    AtomicReferenceArray<SupervisedProcess> started = new AtomicReferenceArray<>(count);
    ScheduledExecutorService background =
        Executors.newScheduledThreadPool(2, Threads.daemons("concurrent-launch-sampler"));
    background.scheduleWithFixedDelay(
        () -> sample(started, cookie, seen), 0, SAMPLE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    Set<Integer> killed = ConcurrentHashMap.newKeySet();
    CountDownLatch ready = new CountDownLatch(count);
    CountDownLatch gate = new CountDownLatch(1);
    List<LaunchResult> results = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    LaunchResult[] slots = new LaunchResult[count];
    long[] gateOpened = new long[1];
    for (int i = 0; i < count; i++) {
      int index = i;
      threads.add(
          Threads.startDaemon(
              "concurrent-launch-" + i,
              () -> {
                ready.countDown();
                try {
                  gate.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                slots[index] = runOne(index, gateOpened[0], cookie, started, killed, background);
              }));
    }
    try {
      ready.await();
      gateOpened[0] = System.nanoTime();
      gate.countDown();
      long deadline = System.nanoTime() + Polling.clampNanos(timeout.plus(DRAIN).plus(DRAIN));
      for (Thread t : threads) {
        t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      }
    } finally {
      background.shutdownNow();
      background.awaitTermination(1, TimeUnit.SECONDS);
    }
    sample(started, cookie, seen);
    for (int i = 0; i < count; i++) {
      results.add(
          slots[i] != null
              ? slots[i]
              : new LaunchResult(
                  i,
                  -1,
                  OptionalInt.empty(),
                  "",
                  "harness thread did not finish",
                  timeout,
                  timeout,
                  false));
    }
    return new LaunchReport(results, seen, cookie, platform);
  }

  private LaunchResult runOne(
      int index,
      long gateOpened,
      String cookie,
      AtomicReferenceArray<SupervisedProcess> started,
      Set<Integer> killed,
      ScheduledExecutorService background) {
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    SupervisedProcess p;
    try {
      p = platform.spawn(builder, SpawnOptions.defaults().withTreeCookie(cookie));
    } catch (IOException e) {
      Duration latency = Duration.ofNanos(System.nanoTime() - gateOpened);
      return new LaunchResult(
          index, -1, OptionalInt.empty(), "", e.toString(), latency, latency, false);
    }
    Duration latency = Duration.ofNanos(System.nanoTime() - gateOpened);
    started.set(index, p);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Runnable kill = () -> killCaller(index, p, killed);
    Runnable onReady = killOnReady && index < callersToKill ? kill : null;
    if (index < callersToKill && !killOnReady) {
      // counted from the gate, but never before this caller has started
      long wait = gateOpened + Polling.clampNanos(killAfter) - System.nanoTime();
      background.schedule(kill, Math.max(0, wait), TimeUnit.NANOSECONDS);
    }
    Thread outReader = drain(p.getInputStream(), out, closeStdoutEarly, onReady);
    Thread errReader = drain(p.getErrorStream(), err, false, null);
    boolean exited;
    try {
      exited = p.waitFor(Polling.clampNanos(timeout), TimeUnit.NANOSECONDS);
      outReader.join(DRAIN.toMillis());
      errReader.join(DRAIN.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exited = false;
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - gateOpened);
    String stdout;
    String stderr;
    synchronized (out) {
      stdout = out.toString(StandardCharsets.UTF_8);
    }
    synchronized (err) {
      stderr = err.toString(StandardCharsets.UTF_8);
    }
    return new LaunchResult(
        index,
        p.pid(),
        exited ? OptionalInt.of(p.exitValue()) : OptionalInt.empty(),
        stdout,
        stderr,
        latency,
        elapsed,
        killed.contains(index));
  }

  /** Copies {@code in} to {@code sink}; runs {@code onReady} on the first line that says ready. */
  private static Thread drain(
      InputStream in, ByteArrayOutputStream sink, boolean firstLineOnly, Runnable onReady) {
    return Threads.startDaemon(
        "concurrent-launch-reader",
        () -> {
          StringBuilder line = new StringBuilder();
          Runnable pending = onReady;
          try (in) {
            int b;
            while ((b = in.read()) >= 0) {
              synchronized (sink) {
                sink.write(b);
              }
              if (b != '\n') {
                line.append((char) b);
                continue;
              }
              if (pending != null && line.toString().startsWith(READY_WORD)) {
                pending.run();
                pending = null;
              }
              line.setLength(0);
              if (firstLineOnly) {
                return; // closing stdout now is the broken-pipe variant
              }
            }
          } catch (IOException e) {
            // the stream was closed under us: keep what was read
          }
        });
  }

  private void killCaller(int index, SupervisedProcess p, Set<Integer> killed) {
    if (p.isAlive() && killed.add(index)) {
      platform.signal(p.identity(), Signal.KILL);
    }
  }

  private void sample(
      AtomicReferenceArray<SupervisedProcess> started, String cookie, Set<ProcessIdentity> seen) {
    try {
      ProcessTable table = platform.snapshot();
      for (int i = 0; i < started.length(); i++) {
        SupervisedProcess p = started.get(i);
        if (p == null) {
          continue;
        }
        seen.add(p.identity());
        for (ProcessInfo d : table.descendants(p.pid())) {
          if (!d.hasExited()) {
            seen.add(d.identity(table.bootId()));
          }
        }
      }
      for (long pid : platform.findByEnvironment(SpawnOptions.COOKIE_VARIABLE, cookie)) {
        table.identity(pid).ifPresent(seen::add);
      }
    } catch (RuntimeException e) {
      // a lost sample loses evidence only; the cookie sweep in the report still runs
    }
  }

  /** Options for a {@link ConcurrentLaunch}. */
  public static final class Builder {
    private final List<String> command;
    private int count = 4;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private Runnable warmUp;
    private boolean closeStdoutEarly;
    private int callersToKill;
    private Duration killAfter = Duration.ZERO;
    private boolean killOnReady;
    private Duration timeout = DEFAULT_TIMEOUT;
    private ProcessPlatform platform;

    private Builder(List<String> command) {
      if (command.isEmpty()) {
        throw new IllegalArgumentException("empty command");
      }
      this.command = List.copyOf(command);
    }

    /**
     * How many processes start at once (default 4).
     *
     * @param value at least 1
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is below 1
     */
    public Builder count(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("count must be >= 1: " + value);
      }
      this.count = value;
      return this;
    }

    /**
     * Adds an environment variable to every launched process.
     *
     * @param name the variable's name
     * @param value its value
     * @return this builder
     */
    public Builder environment(String name, String value) {
      environment.put(Objects.requireNonNull(name), Objects.requireNonNull(value));
      return this;
    }

    /**
     * Warm variant: {@code run} (e.g. one run of the command) happens before the gate.
     *
     * @param run what to do once before the processes start
     * @return this builder
     */
    public Builder warmUp(Runnable run) {
      this.warmUp = Objects.requireNonNull(run, "warmUp");
      return this;
    }

    /**
     * Broken-pipe variant: the reader closes each stdout after its first line.
     *
     * @return this builder
     */
    public Builder closeStdoutAfterFirstLine() {
      this.closeStdoutEarly = true;
      return this;
    }

    /**
     * Caller-killed variant: SIGKILL the first {@code howMany} processes {@code after} the start
     * gate opens (or as soon as each has started, if that is later), if they still run then. The
     * delay races what the callers do themselves: on a loaded machine a caller may not yet have
     * started what it was to orphan. {@link #killCallersOnceReady(int)} races nothing.
     *
     * @param howMany how many processes to kill, {@code 0..count}
     * @param after the delay after the start
     * @return this builder
     * @throws IllegalArgumentException if {@code howMany} is negative or above the count
     */
    public Builder killCallers(int howMany, Duration after) {
      if (howMany < 0 || howMany > count) {
        throw new IllegalArgumentException(
            "killCallers must be within 0.." + count + ": " + howMany);
      }
      this.callersToKill = howMany;
      this.killAfter = Objects.requireNonNull(after, "after");
      this.killOnReady = false;
      return this;
    }

    /**
     * Caller-killed variant without a race: SIGKILL each of the first {@code howMany} processes the
     * moment it prints its first line starting with {@code ready } on stdout, as a {@link
     * FixtureScript#ready()} step does once the children above it are forked. A process that never
     * prints it is not killed (and not reported as {@link LaunchResult#killedByHarness()}).
     *
     * @param howMany how many processes to kill, {@code 0..count}
     * @return this builder
     * @throws IllegalArgumentException if {@code howMany} is negative or above the count
     */
    public Builder killCallersOnceReady(int howMany) {
      killCallers(howMany, Duration.ZERO);
      this.killOnReady = true;
      return this;
    }

    /**
     * Bound on each process's run; a process still running then is reported, not awaited.
     *
     * @param value the bound, positive
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is zero or negative
     */
    public Builder timeout(Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("timeout must be positive: " + value);
      }
      this.timeout = value;
      return this;
    }

    /**
     * The platform that spawns and signals the processes; default {@link ProcessPlatform#get()}.
     *
     * @param value the platform
     * @return this builder
     */
    public Builder platform(ProcessPlatform value) {
      this.platform = Objects.requireNonNull(value);
      return this;
    }

    /**
     * Builds the launch; nothing starts until {@link ConcurrentLaunch#run()}.
     *
     * @return a new launch
     * @throws IllegalArgumentException if more callers are to be killed than are launched
     */
    public ConcurrentLaunch build() {
      if (callersToKill > count) {
        throw new IllegalArgumentException("cannot kill more callers than are launched");
      }
      return new ConcurrentLaunch(this);
    }
  }
}
