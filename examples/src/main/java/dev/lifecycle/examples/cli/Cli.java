package dev.lifecycle.examples.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.lifecycle.broker.BrokerClient;
import dev.lifecycle.broker.BrokerConnection;
import dev.lifecycle.examples.broker.BrokerCommand;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.time.Limit;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;

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
 *       {@code main} simply returns: the JVM ends because nothing keeps it alive (the socket is
 *       closed, the caller watch and the library's helper threads are daemons).
 *   <li>{@value #FAILED}: the broker replied with an error; it is on stderr.
 *   <li>{@value #USAGE}: bad arguments.
 *   <li>{@value #UNAVAILABLE}: no broker could be reached or started, or it hung up.
 *   <li>{@value #TIMED_OUT}: no reply within {@code example.cli.timeout} / {@code
 *       EXAMPLE_CLI_TIMEOUT} (default 60 s).
 *   <li>{@value #CALLER_GONE}: the process that started this CLI died while it waited ({@link
 *       CallerWatch}: noticed within a quarter second); nobody hears this status.
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
  public static final int CALLER_GONE = 5;
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
    // From the first moment: a caller killed while we start a broker or wait for a reply must not
    // leave us waiting for nobody. The broker we may have started outlives us on purpose.
    CallerWatch watch = CallerWatch.start(() -> System.exit(CALLER_GONE));
    String reply;
    try {
      RecordStore store = RecordStore.open(workspace);
      BrokerClient client =
          BrokerClient.builder()
              .store(store)
              .name(BROKER_NAME)
              .command(() -> BrokerCommand.broker(store.directory()))
              .build();
      try (BrokerConnection connection = client.connection()) {
        reply = connection.call(request.replace("\n", " "), timeout);
      }
    } catch (SocketTimeoutException e) {
      System.err.println("no reply within " + timeout);
      return TIMED_OUT;
    } catch (IOException e) {
      System.err.println("broker unavailable: " + e.getMessage());
      return UNAVAILABLE;
    } finally {
      watch.close();
    }
    return print(reply);
  }

  /** Prints the reply's result (stdout) or error (stderr) and returns the exit status. */
  private static int print(String text) {
    Reply reply;
    try {
      reply = Reply.parse(text);
    } catch (JsonProcessingException e) {
      System.err.println("the broker sent invalid JSON: " + e.getOriginalMessage());
      return UNAVAILABLE;
    }
    if (reply.ok()) {
      System.out.println(reply.payload());
      // PrintStream swallows IOException: checkError() flushes and reports EPIPE. Exit quietly
      // (no stack trace, nothing on stderr): the reader went away on purpose (| head, a killed
      // pager).
      return System.out.checkError() ? BROKEN_PIPE : OK;
    }
    System.err.println("error: " + reply.payload());
    return FAILED;
  }
}
