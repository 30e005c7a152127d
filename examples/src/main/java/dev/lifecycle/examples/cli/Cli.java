package dev.lifecycle.examples.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.lifecycle.broker.BrokerClient;
import dev.lifecycle.examples.broker.BrokerCommand;
import dev.lifecycle.examples.broker.Json;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.time.Limit;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The example client: runs one request through the workspace's broker, starting the broker if none
 * serves, prints the result and exits.
 *
 * <pre>
 * java ... dev.lifecycle.examples.cli.Cli &lt;workspace-dir&gt; '{"op":"call","tool":"echo","args":"hi"}'
 * </pre>
 *
 * <p>The workspace directory is the broker's record store (created 0700 if absent). Exit codes:
 *
 * <ul>
 *   <li>{@value #OK}: the broker replied {@code "ok":true}; the result is on stdout. On this path
 *       {@code main} simply returns: the JVM ends because nothing keeps it alive (the reply reader
 *       is a daemon thread, the socket is closed, the library's helper threads are daemons).
 *   <li>{@value #FAILED}: the broker replied with an error; it is on stderr.
 *   <li>{@value #USAGE}: bad arguments.
 *   <li>{@value #UNAVAILABLE}: no broker could be reached or started, or it hung up.
 *   <li>{@value #TIMED_OUT}: no reply within {@code example.cli.timeout} / {@code
 *       EXAMPLE_CLI_TIMEOUT} (default 60 s).
 *   <li>{@value #BROKEN_PIPE}: stdout was a closed pipe (EPIPE). Quietly: the reader is gone, so
 *       there is nobody to tell; 141 is what a shell reports for a writer killed by SIGPIPE.
 * </ul>
 *
 * Every non-zero status needs {@code System.exit}: Java has no other way to set one.
 */
public final class Cli {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;
  public static final int UNAVAILABLE = 3;
  public static final int TIMED_OUT = 4;
  public static final int BROKEN_PIPE = 141;

  /** The broker's record name in the workspace. */
  public static final String BROKER_NAME = "example-broker";

  static final Limit DEFAULT_TIMEOUT = Limit.ofSeconds(60);

  private Cli() {}

  public static void main(String[] args) {
    if (args.length != 2) {
      System.err.println("usage: Cli <workspace-dir> <request-json>");
      System.exit(USAGE);
    }
    int status = run(Path.of(args[0]), args[1]);
    if (status != OK) {
      System.exit(status);
    }
    // Success: return and let the JVM end by itself; a stray non-daemon thread would show as a
    // hang.
  }

  static int run(Path workspace, String request) {
    Limit timeout = Limit.fromConfig("example.cli.timeout", "EXAMPLE_CLI_TIMEOUT", DEFAULT_TIMEOUT);
    String reply;
    try {
      RecordStore store = RecordStore.open(workspace);
      BrokerClient client =
          BrokerClient.builder()
              .store(store)
              .name(BROKER_NAME)
              .command(() -> BrokerCommand.broker(store.directory()))
              .build();
      // connect() only returns a connection the broker greeted: one it queued while shutting
      // down fails like a refused connect and connect() starts a broker over.
      try (SocketChannel channel = client.connect()) {
        reply = exchange(channel, request, timeout);
      }
    } catch (TimeoutException e) {
      System.err.println("no reply within " + timeout);
      return TIMED_OUT;
    } catch (IOException e) {
      System.err.println("broker unavailable: " + e.getMessage());
      return UNAVAILABLE;
    }
    return print(reply);
  }

  /** Sends one line and waits, bounded, for one reply line. */
  private static String exchange(SocketChannel channel, String request, Limit timeout)
      throws IOException, TimeoutException {
    ByteBuffer out = ByteBuffer.wrap((request.replace("\n", " ") + "\n").getBytes(UTF_8));
    while (out.hasRemaining()) {
      channel.write(out);
    }
    CompletableFuture<String> reply = new CompletableFuture<>();
    // A blocking read has no timeout: read on a daemon thread, wait on the future with one, and
    // close the channel (which ends the read) when it passes.
    Thread reader = new Thread(() -> readLine(channel, reply), "cli-reply-reader");
    reader.setDaemon(true);
    reader.start();
    try {
      return timeout.isEnabled() ? reply.get(timeout.toNanos(), TimeUnit.NANOSECONDS) : reply.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
  }

  private static void readLine(SocketChannel channel, CompletableFuture<String> reply) {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    ByteBuffer buffer = ByteBuffer.allocate(8192);
    try {
      while (channel.read(buffer) >= 0) {
        buffer.flip();
        while (buffer.hasRemaining()) {
          byte b = buffer.get();
          if (b == '\n') {
            reply.complete(line.toString(UTF_8));
            return;
          }
          line.write(b);
        }
        buffer.clear();
      }
      reply.completeExceptionally(new IOException("the broker hung up before replying"));
    } catch (IOException e) {
      reply.completeExceptionally(e);
    }
  }

  /** Prints the reply's result (stdout) or error (stderr) and returns the exit status. */
  private static int print(String reply) {
    Object parsed;
    try {
      parsed = Json.parse(reply);
    } catch (Json.ParseException e) {
      System.err.println("the broker sent invalid JSON: " + e.getMessage());
      return UNAVAILABLE;
    }
    if (parsed instanceof Map<?, ?> fields && Boolean.TRUE.equals(fields.get("ok"))) {
      System.out.println(Json.write(fields.get("result")));
      // PrintStream swallows IOException: checkError() flushes and reports EPIPE. Exit quietly
      // (no stack trace, nothing on stderr): the reader went away on purpose (| head, a killed
      // pager).
      return System.out.checkError() ? BROKEN_PIPE : OK;
    }
    Object error = parsed instanceof Map<?, ?> fields ? fields.get("error") : parsed;
    System.err.println("error: " + Json.write(error));
    return FAILED;
  }
}
