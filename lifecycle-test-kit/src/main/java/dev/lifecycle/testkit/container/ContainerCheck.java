package dev.lifecycle.testkit.container;

import dev.lifecycle.internal.Backoff;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;

/**
 * Runs a program as PID 1 in a fresh PID namespace (a Docker container) and checks that once it
 * reports it is done, nothing but PID 1 is left and no zombie awaits reaping. Needs the optional
 * {@code org.testcontainers:testcontainers} dependency and a Docker engine; call {@link
 * #assumeRunnable()} first, so machines without Docker skip, not fail, while a CI run ({@code
 * CI=true}) without them fails: a container check must not pass by skipping.
 *
 * <p>No image is pulled: the image is built locally {@code FROM scratch} with a statically linked
 * busybox (Debian: {@code apt-get install busybox-static}) copied in, plus any files added with
 * {@link Builder#file}. Processes are listed by reading {@code /proc/<pid>/stat} inside the
 * container with busybox sh builtins, no {@code ps}; processes of the inspection itself (parent pid
 * 0 in the namespace) are left out.
 *
 * <p>Where Docker runs inside a container (a {@code /.dockerenv}) and the Ryuk image cannot be
 * pulled, Testcontainers needs {@code TESTCONTAINERS_RYUK_DISABLED=true} and {@code
 * TESTCONTAINERS_HOST_OVERRIDE=localhost}; the project's {@code .ci/run} sets them, a normal laptop
 * needs neither.
 */
public final class ContainerCheck {
  /** Where Debian's busybox-static puts a statically linked busybox. */
  public static final Path DEFAULT_BUSYBOX = Path.of("/bin/busybox");

  /** Bound for the program to report done and for the namespace to empty: a cold engine is slow. */
  public static final Duration DEFAULT_WITHIN = Duration.ofSeconds(30);

  private static final String LIST =
      "for d in /proc/[0-9]*; do read -r l < $d/stat 2>/dev/null && echo \"$l\"; done";

  private final Path busybox;
  private final List<String> command;
  private final List<Path[]> files;
  private final String doneLine;
  private final Duration within;
  private final Duration settle;

  private ContainerCheck(Builder b) {
    this.busybox = b.busybox;
    this.command = List.copyOf(b.command);
    this.files = List.copyOf(b.files);
    this.doneLine = b.doneLine;
    this.within = b.within;
    this.settle = b.settle;
  }

  /**
   * Skips the calling test (a JUnit assumption) when no Docker engine answers or no static busybox
   * is at {@link #DEFAULT_BUSYBOX}; when the environment variable {@code CI} is {@code true} it
   * fails instead, naming what is missing.
   *
   * @throws AssertionError under {@code CI=true} when the check cannot run
   */
  public static void assumeRunnable() {
    assumeRunnable(System.getenv(), busyboxAvailable(), dockerAvailable());
  }

  static void assumeRunnable(Map<String, String> environment, boolean busybox, boolean docker) {
    Optional<String> missing = missing(busybox, docker);
    if (missing.isEmpty()) {
      return;
    }
    if ("true".equalsIgnoreCase(environment.get("CI"))) {
      throw new AssertionError(
          "container check cannot run and CI=true forbids skipping it: " + missing.get());
    }
    Assumptions.assumeTrue(false, "skipped: " + missing.get());
  }

  private static Optional<String> missing(boolean busybox, boolean docker) {
    if (!busybox) {
      return Optional.of(
          "no static busybox at " + DEFAULT_BUSYBOX + " (apt-get install busybox-static)");
    }
    if (!docker) {
      return Optional.of("no Docker engine answers (.ci/run starts dockerd)");
    }
    return Optional.empty();
  }

  /**
   * Whether a Docker engine answers (Testcontainers' own check).
   *
   * @return true when Testcontainers can reach an engine
   */
  public static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  /**
   * Whether a statically linked busybox is where {@link #DEFAULT_BUSYBOX} says.
   *
   * @return true when that file is executable
   */
  public static boolean busyboxAvailable() {
    return Files.isExecutable(DEFAULT_BUSYBOX);
  }

  /**
   * PID 1 runs {@code /bin/busybox sh -c script}.
   *
   * @param script the shell script PID 1 runs; it prints the done line when its work is finished
   * @return a builder for the check
   */
  public static Builder shellAsPid1(String script) {
    return new Builder(List.of("/bin/busybox", "sh", "-c", script));
  }

  /**
   * PID 1 runs {@code command} (paths inside the image; add files with {@link Builder#file}).
   *
   * @param command the program and its arguments, not empty
   * @return a builder for the check
   * @throws IllegalArgumentException if {@code command} is empty
   */
  public static Builder programAsPid1(List<String> command) {
    return new Builder(command);
  }

  /**
   * Starts the container, waits for the done line, checks the namespace, removes the container.
   *
   * @return the processes left in the container's PID namespace once it stayed clean for the settle
   *     time, or as they were when {@code within} ran out
   * @throws InterruptedException if the thread is interrupted while polling the namespace
   * @throws IllegalStateException if the container's {@code /proc} cannot be read
   */
  public Result run() throws InterruptedException {
    ImageFromDockerfile image =
        new ImageFromDockerfile("lifecycle-container-check", true)
            .withFileFromPath("busybox", busybox);
    for (int i = 0; i < files.size(); i++) {
      image.withFileFromPath("file" + i, files.get(i)[0]);
    }
    image.withDockerfileFromBuilder(
        d -> {
          d.from("scratch").copy("busybox", "/bin/busybox");
          for (int i = 0; i < files.size(); i++) {
            d.copy("file" + i, files.get(i)[1].toString());
          }
          d.build();
        });
    try (GenericContainer<?> container =
        new GenericContainer<>(image)
            .withCommand(command.toArray(String[]::new))
            .waitingFor(
                Wait.forLogMessage(".*" + java.util.regex.Pattern.quote(doneLine) + ".*\\n", 1)
                    .withStartupTimeout(within))) {
      container.start();
      long deadline = System.nanoTime() + within.toNanos();
      long settleUntil = System.nanoTime() + settle.toNanos();
      List<String> rows = List.of();
      Backoff backoff = Backoff.of(Duration.ofMillis(20), Duration.ofMillis(250));
      while (true) {
        rows = list(container);
        boolean clean = rows.size() == 1 && rows.get(0).startsWith("1 ") && !isZombie(rows.get(0));
        if ((clean && System.nanoTime() >= settleUntil) || System.nanoTime() >= deadline) {
          return new Result(rows, container.getLogs());
        }
        TimeUnit.NANOSECONDS.sleep(backoff.nextNanos());
      }
    }
  }

  private static List<String> list(GenericContainer<?> container) throws InterruptedException {
    ExecResult r;
    try {
      r = container.execInContainer("/bin/busybox", "sh", "-c", LIST);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot inspect /proc in the container", e);
    }
    List<String> out = new ArrayList<>();
    for (String line : r.getStdout().split("\n")) {
      String[] f = fields(line);
      if (f == null) {
        continue;
      }
      long pid = Long.parseLong(f[0]);
      long ppid = Long.parseLong(f[3]);
      if (ppid == 0 && pid != 1) {
        continue; // the inspection's own shell, entered with docker exec
      }
      out.add(pid + " " + f[2] + " ppid " + ppid + " " + f[1]);
    }
    return out;
  }

  /** pid, (comm), state, ppid from a stat line; the command name may contain spaces. */
  private static String[] fields(String line) {
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open < 0 || close < open || close + 2 >= line.length()) {
      return null;
    }
    String[] rest = line.substring(close + 2).split(" ");
    return new String[] {
      line.substring(0, open).trim(), line.substring(open, close + 1), rest[0], rest[1]
    };
  }

  private static boolean isZombie(String row) {
    return row.split(" ")[1].equals("Z");
  }

  /**
   * What the namespace held after the program reported done.
   *
   * @param processes one row per process: {@code "<pid> <state> ppid <ppid> (<comm>)"}
   * @param logs the container's output
   */
  public record Result(List<String> processes, String logs) {
    /**
     * Copies {@code processes}.
     *
     * @param processes one row per process: {@code "<pid> <state> ppid <ppid> (<comm>)"}
     * @param logs the container's output
     * @throws NullPointerException if a component is {@code null}
     */
    public Result {
      processes = List.copyOf(processes);
      Objects.requireNonNull(logs, "logs");
    }

    /**
     * Rows of zombies (exited, never reaped).
     *
     * @return the rows of {@link #processes()} whose state is {@code Z}
     */
    public List<String> zombies() {
      return processes.stream().filter(ContainerCheck::isZombie).toList();
    }

    /**
     * Fails unless PID 1 is the only process and no zombie awaits reaping.
     *
     * @return this result, for chaining
     * @throws AssertionError listing every process left and the container's output
     */
    public Result assertOnlyPid1Remains() {
      boolean clean =
          processes.size() == 1 && processes.get(0).startsWith("1 ") && zombies().isEmpty();
      if (!clean) {
        throw new AssertionError(
            "expected only PID 1 in the container's PID namespace, but found "
                + processes.size()
                + " processes ("
                + zombies().size()
                + " unreaped zombies):\n  "
                + String.join("\n  ", processes)
                + "\ncontainer output:\n"
                + logs);
      }
      return this;
    }
  }

  /** Options for a {@link ContainerCheck}. */
  public static final class Builder {
    private final List<String> command;
    private Path busybox = DEFAULT_BUSYBOX;
    private final List<Path[]> files = new ArrayList<>();
    private String doneLine = "done";
    private Duration within = DEFAULT_WITHIN;
    private Duration settle = Duration.ofMillis(300);

    private Builder(List<String> command) {
      if (command.isEmpty()) {
        throw new IllegalArgumentException("empty command");
      }
      this.command = List.copyOf(command);
    }

    /**
     * A statically linked busybox on this machine (dynamic ones cannot run FROM scratch); default
     * {@link #DEFAULT_BUSYBOX}.
     *
     * @param value the busybox binary to copy into the image
     * @return this builder
     */
    public Builder busybox(Path value) {
      this.busybox = Objects.requireNonNull(value);
      return this;
    }

    /**
     * Copies {@code hostFile} into the image at {@code imagePath}.
     *
     * @param hostFile a file on this machine
     * @param imagePath where it goes in the image, absolute
     * @return this builder
     */
    public Builder file(Path hostFile, Path imagePath) {
      files.add(new Path[] {hostFile, imagePath});
      return this;
    }

    /**
     * The line PID 1 prints when its work is finished (default {@code done}).
     *
     * @param value text the container's output must contain
     * @return this builder
     */
    public Builder doneLine(String value) {
      this.doneLine = Objects.requireNonNull(value);
      return this;
    }

    /**
     * Bound for the done line and for the namespace to empty; default {@link #DEFAULT_WITHIN}.
     *
     * @param value how long to wait for each
     * @return this builder
     */
    public Builder within(Duration value) {
      this.within = Objects.requireNonNull(value);
      return this;
    }

    /**
     * How long the namespace must stay clean after the done line before the check passes: catches
     * orphans that exit and are left unreaped a moment later (default 300 ms).
     *
     * @param value the settle time
     * @return this builder
     */
    public Builder settle(Duration value) {
      this.settle = Objects.requireNonNull(value);
      return this;
    }

    /**
     * Builds the check; nothing runs until {@link ContainerCheck#run()}.
     *
     * @return a new check
     */
    public ContainerCheck build() {
      return new ContainerCheck(this);
    }
  }
}
