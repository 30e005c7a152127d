package dev.lifecycle.examples.broker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The broker's backend: a fake "app server" ({@code sh}) that starts four "MCP server" children,
 * two of which ignore SIGTERM as some real ones do, then answers {@code echo <id> <args>} lines on
 * its stdin by echoing them on its stdout. {@code crash <id>} makes it exit (its MCP servers stay:
 * only their group's termination ends them).
 *
 * <p>It talks to the broker over its stdio pipes; the MCP servers get {@code /dev/null} instead, so
 * the app server's stdout reaches end-of-file when the app server itself exits.
 */
public final class AppServer implements AutoCloseable {
  /** What the app server does at start; chosen with {@value #MODE_PROPERTY}. */
  public enum Mode {
    /** Starts its MCP servers, says {@code ready}, serves. */
    NORMAL,
    /** Starts its MCP servers and never answers initialize (the broker's startup bound ends it). */
    STALL,
    /** Refuses to initialize and ignores SIGTERM (the connect cleanup must SIGKILL its tree). */
    INIT_ERROR
  }

  /** System property of the broker JVM choosing the {@link Mode}. */
  public static final String MODE_PROPERTY = "example.backend.mode";

  private static final String SCRIPT =
      """
      mode=$1
      # MCP servers: two end on SIGTERM, two ignore it (an ignored signal stays ignored over exec)
      sleep 600 </dev/null >/dev/null 2>&1 &
      sleep 600 </dev/null >/dev/null 2>&1 &
      ( trap '' TERM; exec sleep 601 ) </dev/null >/dev/null 2>&1 &
      ( trap '' TERM; exec sleep 602 ) </dev/null >/dev/null 2>&1 &
      case $mode in
        STALL) exec sleep 600 ;;
        INIT_ERROR) trap '' TERM; echo "error backend refused to initialize"; exec sleep 600 ;;
      esac
      echo "ready $$"
      while IFS= read -r line; do
        case $line in crash*) exit 3 ;; esac
        printf '%s\\n' "$line"
      done
      """;

  private final OutputStream toServer;
  private final Map<Long, CompletableFuture<String>> pending = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private final AtomicBoolean alive = new AtomicBoolean(true);

  private AppServer(Process leader) {
    this.toServer = leader.getOutputStream();
  }

  /** The app server's command line in {@code mode}. */
  public static ProcessBuilder command(Mode mode) {
    return new ProcessBuilder("sh", "-c", SCRIPT, "app-server", mode.name())
        .redirectError(Redirect.DISCARD);
  }

  /** The mode configured for this JVM ({@link Mode#NORMAL} unless set). */
  public static Mode configuredMode() {
    return Mode.valueOf(
        System.getProperty(MODE_PROPERTY, Mode.NORMAL.name()).toUpperCase(Locale.ROOT));
  }

  /**
   * The "initialize" handshake: waits for the app server's first line. Blocks without a bound of
   * its own: {@code Connect.withBackend} bounds it and reclaims the tree when it fails.
   *
   * @throws IOException when the app server refuses or exits before it is ready
   */
  public static AppServer initialize(Process leader) throws IOException {
    BufferedReader fromServer =
        new BufferedReader(new InputStreamReader(leader.getInputStream(), StandardCharsets.UTF_8));
    String first = fromServer.readLine();
    if (first == null) {
      throw new IOException("app server exited before it was ready");
    }
    if (!first.startsWith("ready ")) {
      throw new IOException("app server failed to initialize: " + first);
    }
    AppServer server = new AppServer(leader);
    Thread reader = new Thread(() -> server.readReplies(fromServer), "app-server-replies");
    reader.setDaemon(true); // the broker's lifetime is decided by its runtime, never by this pipe
    reader.start();
    return server;
  }

  /**
   * Sends {@code args} (a JSON text) to the echo tool. Fails at once, not with a pending future,
   * once the app server is gone.
   */
  public CompletableFuture<String> echo(String args) {
    return send("echo", args);
  }

  /** Makes the app server exit (a backend crash, for the examples). */
  public CompletableFuture<String> crash() {
    return send("crash", "");
  }

  private CompletableFuture<String> send(String tool, String args) {
    CompletableFuture<String> reply = new CompletableFuture<>();
    if (!alive.get()) {
      return CompletableFuture.failedFuture(new IOException("app server is gone"));
    }
    long id = ids.incrementAndGet();
    pending.put(id, reply);
    try {
      synchronized (toServer) {
        toServer.write((tool + " " + id + " " + args + "\n").getBytes(StandardCharsets.UTF_8));
        toServer.flush();
      }
    } catch (IOException e) {
      pending.remove(id);
      died();
      reply.completeExceptionally(new IOException("app server is gone: " + e.getMessage(), e));
    }
    if (!alive.get()) { // died between the check and the put: nobody else will fail it
      failPending();
    }
    return reply;
  }

  private void readReplies(BufferedReader fromServer) {
    try {
      String line;
      while ((line = fromServer.readLine()) != null) {
        String[] parts = line.split(" ", 3);
        if (parts.length == 3) {
          CompletableFuture<String> reply = pending.remove(Long.parseLong(parts[1]));
          if (reply != null) {
            reply.complete(parts[2]);
          }
        }
      }
    } catch (IOException | NumberFormatException e) {
      // fall through: the transport is unusable either way
    }
    died();
  }

  private void died() {
    alive.set(false);
    failPending();
  }

  private void failPending() {
    pending
        .keySet()
        .forEach(
            id -> {
              CompletableFuture<String> reply = pending.remove(id);
              if (reply != null) {
                reply.completeExceptionally(new IOException("app server exited"));
              }
            });
  }

  public boolean isAlive() {
    return alive.get();
  }

  /** Closes the app server's stdin (the broker's shutdown pass terminates its tree anyway). */
  @Override
  public void close() {
    try {
      toServer.close();
    } catch (IOException e) {
      // already gone
    }
  }
}
