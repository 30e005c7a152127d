package dev.lifecycle.tether;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.internal.Threads;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A tether's sidecar process: the script {@code tether.sh} run as {@code sh -c} text in a session
 * of its own, and the pipe that feeds it {@link SidecarLines}. Thread-safe.
 */
final class Sidecar {
  private static final LazyLogger LOG = LazyLogger.of(Tether.class);
  private static final String SCRIPT = "tether.sh";
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

  private final SupervisedProcess process;
  private final OutputStream pipe;

  private Sidecar(SupervisedProcess process) {
    this.process = process;
    this.pipe = process.getOutputStream();
  }

  /**
   * Starts the sidecar with the grace and this JVM's pid and waits for its {@code ready} line;
   * nothing is left running when this throws.
   *
   * @throws IOException if it cannot be started or does not report ready within 10 s
   */
  static Sidecar start(ProcessPlatform platform, Duration grace) throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(
                "/bin/sh",
                "-c",
                scriptText(),
                "lifecycle-tether",
                Long.toString(grace.toMillis()),
                Long.toString(ProcessHandle.current().pid()))
            .redirectInput(Redirect.PIPE)
            .redirectOutput(Redirect.PIPE)
            .redirectError(Redirect.DISCARD);
    // The sidecar keeps this JVM's cookie (if any), so whoever supervises us finds it too.
    String inherited = System.getenv(SpawnOptions.COOKIE_VARIABLE);
    SpawnOptions options = SpawnOptions.defaults().withNewSession(true);
    if (inherited != null && SidecarLines.isCookie(inherited)) {
      options = options.withTreeCookie(inherited);
    }
    SupervisedProcess sidecar = platform.spawn(builder, options);
    try {
      awaitReady(sidecar);
    } catch (IOException e) {
      sidecar.destroyForcibly();
      throw e;
    }
    return new Sidecar(sidecar);
  }

  long pid() {
    return process.pid();
  }

  ProcessIdentity identity() {
    return process.identity();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Writes one line; throws when the sidecar is gone. */
  void write(String line) throws IOException {
    synchronized (pipe) { // one write per line, each shorter than PIPE_BUF: never interleaved
      pipe.write((line + "\n").getBytes(UTF_8));
      pipe.flush();
    }
  }

  /**
   * Writes {@code command}, closes the pipe and waits up to {@code wait} for the sidecar to exit;
   * kills only the sidecar after that, never the trees.
   */
  void stop(String command, Duration wait) {
    try {
      write(command);
      pipe.close();
    } catch (IOException e) {
      LOG.debug("tether sidecar {} already gone", process.pid(), e);
    }
    try {
      if (!process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("tether sidecar {} did not exit in {}; killing it", process.pid(), wait);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitReady(SupervisedProcess sidecar) throws IOException {
    CompletableFuture<String> ready = new CompletableFuture<>();
    Threads.startDaemon(
        "lifecycle-tether-start",
        () -> {
          try (BufferedReader out =
              new BufferedReader(new InputStreamReader(sidecar.getInputStream(), UTF_8))) {
            ready.complete(String.valueOf(out.readLine()));
          } catch (IOException | RuntimeException e) {
            ready.completeExceptionally(e);
          }
        });
    String line;
    try {
      line = ready.get(STARTUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IOException("tether sidecar did not report ready in " + STARTUP_TIMEOUT, e);
    } catch (ExecutionException e) {
      throw new IOException("tether sidecar failed to start", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting the tether sidecar", e);
    }
    if (!line.startsWith("ready ")) {
      throw new IOException("tether sidecar did not start: " + line);
    }
  }

  /**
   * The script, passed as {@code sh -c} text: no file is ever written, so a JVM killed while the
   * tether starts leaves nothing on disk. Comment lines are dropped (shorter command line).
   */
  private static String scriptText() throws IOException {
    try (InputStream in = Sidecar.class.getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IOException("resource " + SCRIPT + " missing");
      }
      StringBuilder out = new StringBuilder();
      for (String line : new String(in.readAllBytes(), UTF_8).split("\n", -1)) {
        if (!line.stripLeading().startsWith("#")) {
          out.append(line).append('\n');
        }
      }
      return out.toString();
    }
  }
}
