package dev.lifecycle.testkit;

import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A launchable fixture: a {@link FixtureScript} run by {@code /bin/sh} with the test kit's markers
 * in its environment. Every fixture process (and every descendant, which inherits the environment)
 * carries {@value #MARKER_VARIABLE}{@code =1}, {@value #OWNER_VARIABLE} naming this JVM, and the
 * tree cookie as {@link SpawnOptions#COOKIE_VARIABLE}, so a leak is attributable to this JVM even
 * after it escaped the session. Immutable.
 *
 * <pre>{@code
 * FixtureChild child = FixtureChild.of(FixtureScript.create()
 *     .spawn(3, FixtureScript.create().ignoreTerm().sleep(Duration.ofSeconds(30)))
 *     .ready().sleep(Duration.ofSeconds(30)));
 * SupervisedProcess p = child.spawn(ProcessPlatform.get());
 * long pid = FixtureChild.awaitReady(p, Duration.ofSeconds(5));
 * }</pre>
 */
public final class FixtureChild {
  /** Set to {@code 1} in every fixture process (the script exports it too). */
  public static final String MARKER_VARIABLE = "LIFECYCLE_FIXTURE";

  /** Names the JVM that started the fixture: {@code <pid>-<start time>}. */
  public static final String OWNER_VARIABLE = "LIFECYCLE_TESTKIT_OWNER";

  /** Where each fixture process appends its pid when set. */
  public static final String PIDFILE_VARIABLE = "LIFECYCLE_FIXTURE_PIDFILE";

  private static final String SHELL = "/bin/sh";

  private final FixtureScript script;
  private final String cookie;
  private final Map<String, String> environment;

  private FixtureChild(Builder b) {
    this.script = b.script;
    this.cookie = b.cookie;
    this.environment = Map.copyOf(b.environment);
  }

  /**
   * A fixture with a fresh cookie and no extra environment.
   *
   * @param script what the fixture's shell processes do
   * @return a fixture, not started yet
   */
  public static FixtureChild of(FixtureScript script) {
    return builder(script).build();
  }

  /**
   * A builder for a fixture that runs {@code script}, with a fresh cookie.
   *
   * @param script what the fixture's shell processes do
   * @return a new builder
   * @throws NullPointerException if {@code script} is {@code null}
   */
  public static Builder builder(FixtureScript script) {
    return new Builder(script);
  }

  /**
   * The value of {@link #OWNER_VARIABLE} for fixtures started by this JVM.
   *
   * @return this JVM's {@code <pid>-<start time>}, the identity of the owner
   */
  public static String ownerValue() {
    var self = ProcessPlatform.get().self();
    return self.pid() + "-" + self.startTime();
  }

  /**
   * Whether util-linux {@code setsid(1)} is on this machine (the {@code setsid} command needs it).
   *
   * @return {@code true} if an executable {@code setsid} is in a {@code PATH} directory
   */
  public static boolean setsidAvailable() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "setsid"))) {
        return true;
      }
    }
    return false;
  }

  /**
   * What this fixture's processes do.
   *
   * @return the script this fixture was built with
   */
  public FixtureScript script() {
    return script;
  }

  /**
   * The tree cookie every process of this fixture carries.
   *
   * @return the value of the cookie environment variable in every fixture process
   */
  public String cookie() {
    return cookie;
  }

  /**
   * Selects every process of this fixture, escapees included, by its cookie.
   *
   * @return a selector matching this fixture's cookie
   */
  public TreeSelector tree() {
    return TreeSelector.cookie(cookie);
  }

  /**
   * Kills every running process carrying this fixture's cookie (escapees included) with an
   * identity-checked SIGKILL, repeating until none is left (zombies count as gone).
   *
   * @param within how long to keep killing and polling before giving up
   * @throws AssertionError when some are still running after {@code within}
   */
  public void killAll(Duration within) {
    ProcessPlatform platform = ProcessPlatform.get();
    boolean done =
        Polling.until(
            within,
            () -> {
              boolean any = false;
              for (long pid : platform.findByEnvironment(SpawnOptions.COOKIE_VARIABLE, cookie)) {
                var id = platform.identify(pid);
                if (id.isPresent() && platform.probe(id.get()) == Liveness.ALIVE) {
                  platform.signal(id.get(), Signal.KILL);
                  any = true;
                }
              }
              return !any;
            });
    if (!done) {
      throw new AssertionError("fixture processes with cookie " + cookie + " survived SIGKILL");
    }
  }

  /**
   * The command line: {@code /bin/sh <extracted fixture.sh> words...}.
   *
   * @return the command, unmodifiable
   */
  public List<String> command() {
    List<String> command = new ArrayList<>();
    command.add(SHELL);
    command.add(ScriptFile.PATH.toString());
    command.addAll(script.words());
    return List.copyOf(command);
  }

  /**
   * A process builder with the command and the markers (including the cookie) in place.
   *
   * @return a new builder per call; the caller may change it before starting
   */
  public ProcessBuilder processBuilder() {
    ProcessBuilder builder = new ProcessBuilder(command());
    builder.environment().putAll(environment);
    builder.environment().put(MARKER_VARIABLE, "1");
    builder.environment().put(OWNER_VARIABLE, ownerValue());
    builder.environment().put(SpawnOptions.COOKIE_VARIABLE, cookie);
    return builder;
  }

  /**
   * Starts the fixture with a plain {@link ProcessBuilder} (same session and group as the JVM).
   *
   * @return the started shell process
   * @throws IOException if {@code /bin/sh} cannot be started
   */
  public Process start() throws IOException {
    return processBuilder().start();
  }

  /**
   * Starts the fixture through {@code platform} in a new session, exporting this cookie.
   *
   * @param platform the platform that spawns it
   * @return the started shell process, supervised by {@code platform}
   * @throws IOException if {@code /bin/sh} cannot be started
   */
  public SupervisedProcess spawn(ProcessPlatform platform) throws IOException {
    return platform.spawn(processBuilder(), SpawnOptions.defaults().withTreeCookie(cookie));
  }

  /**
   * Waits (polling, bounded) until {@code pidFile} (see {@link Builder#pidFile}) lists at least
   * {@code count} pids, and returns them in the order written. Prefer it to stdout lines for
   * grandchildren: the JDK stops reading a child's stdout once that child exits.
   *
   * @param pidFile the file fixture processes append their pids to
   * @param count how many pids to wait for
   * @param timeout how long to wait
   * @return every pid in the file when {@code count} were reached, in the order written
   * @throws AssertionError when fewer arrive within {@code timeout}
   */
  public static List<Long> awaitPids(Path pidFile, int count, Duration timeout) {
    List<Long> pids = new ArrayList<>();
    boolean enough =
        Polling.until(
            timeout,
            () -> {
              pids.clear();
              try {
                if (Files.exists(pidFile)) {
                  for (String line : Files.readAllLines(pidFile)) {
                    if (!line.isBlank()) {
                      pids.add(Long.parseLong(line.trim()));
                    }
                  }
                }
              } catch (IOException | NumberFormatException e) {
                // a line being written: read again on the next poll
              }
              return pids.size() >= count;
            });
    if (!enough) {
      throw new AssertionError(
          "expected " + count + " pids in " + pidFile + " within " + timeout + ", got " + pids);
    }
    return List.copyOf(pids);
  }

  /**
   * Reads {@code process}'s stdout up to the line {@code ready <pid>} and returns the pid.
   *
   * @param process a started fixture whose stdout nobody else reads
   * @param timeout how long to wait for the line
   * @return the pid on the {@code ready} line
   * @throws AssertionError when the line does not come within {@code timeout}
   */
  public static long awaitReady(Process process, Duration timeout) {
    String line = awaitLine(process, "ready ", timeout);
    return Long.parseLong(line.substring("ready ".length()).trim());
  }

  /**
   * Reads {@code process}'s stdout line by line (unbuffered, so later reads lose nothing) until a
   * line starts with {@code prefix}, and returns it.
   *
   * @param process a started fixture whose stdout nobody else reads
   * @param prefix what the awaited line starts with
   * @param timeout how long to wait for the line
   * @return the whole line, without its newline
   * @throws AssertionError when no such line comes within {@code timeout} or stdout ends first
   */
  public static String awaitLine(Process process, String prefix, Duration timeout) {
    InputStream in = process.getInputStream();
    CompletableFuture<String> line =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                while (true) {
                  String next = readLine(in);
                  if (next == null || next.startsWith(prefix)) {
                    return next;
                  }
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            r -> Threads.startDaemon("fixture-stdout-" + process.pid(), r));
    try {
      String found = line.get(Polling.clampNanos(timeout), TimeUnit.NANOSECONDS);
      if (found == null) {
        throw new AssertionError(
            "fixture pid " + process.pid() + " closed stdout before a line '" + prefix + "...'");
      }
      return found;
    } catch (TimeoutException e) {
      throw new AssertionError(
          "no line '" + prefix + "...' from fixture pid " + process.pid() + " within " + timeout);
    } catch (ExecutionException e) {
      throw new AssertionError("reading fixture pid " + process.pid() + ": " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0) {
      if (b == '\n') {
        return line.toString(StandardCharsets.UTF_8);
      }
      line.write(b);
    }
    return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "FixtureChild[" + script + ", cookie=" + cookie + "]";
  }

  /** Options for a {@link FixtureChild}. */
  public static final class Builder {
    private final FixtureScript script;
    private String cookie = SpawnOptions.newCookie();
    private final Map<String, String> environment = new LinkedHashMap<>();

    private Builder(FixtureScript script) {
      this.script = Objects.requireNonNull(script, "script");
    }

    /**
     * Uses a given cookie instead of a fresh one.
     *
     * @param value 8-64 of [A-Za-z0-9._-]
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is not a valid cookie
     */
    public Builder cookie(String value) {
      this.cookie = SpawnOptions.defaults().withTreeCookie(value).treeCookie();
      return this;
    }

    /**
     * Every fixture process appends its pid to {@code file} when it starts.
     *
     * @param file the file; read it with {@link FixtureChild#awaitPids}
     * @return this builder
     */
    public Builder pidFile(Path file) {
      return environment(PIDFILE_VARIABLE, file.toAbsolutePath().toString());
    }

    /**
     * Adds an environment variable to every fixture process.
     *
     * @param name the variable's name
     * @param value its value
     * @return this builder
     * @throws NullPointerException if either is {@code null}
     */
    public Builder environment(String name, String value) {
      environment.put(Objects.requireNonNull(name), Objects.requireNonNull(value));
      return this;
    }

    /**
     * Builds the fixture; nothing is started.
     *
     * @return a new fixture
     */
    public FixtureChild build() {
      return new FixtureChild(this);
    }
  }

  /** The script extracted once per JVM to a private directory (0700) deleted on exit. */
  private static final class ScriptFile {
    static final Path PATH = extract();

    private static Path extract() {
      try {
        Path dir =
            Files.createTempDirectory(
                "lifecycle-fixture-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        dir.toFile().deleteOnExit();
        Path file = dir.resolve("fixture.sh");
        try (InputStream in = FixtureChild.class.getResourceAsStream("fixture.sh")) {
          if (in == null) {
            throw new IllegalStateException("fixture.sh missing from the test-kit jar");
          }
          Files.copy(in, file);
        }
        file.toFile().deleteOnExit();
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r-x------"));
        return file;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot extract fixture.sh", e);
      }
    }
  }
}
