package dev.lifecycle.examples.broker;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.lifecycle.broker.BrokerClient;
import dev.lifecycle.broker.BrokerLimits;
import dev.lifecycle.broker.BrokerRequest;
import dev.lifecycle.broker.BrokerRuntime;
import dev.lifecycle.broker.Connect;
import dev.lifecycle.broker.ShutdownReason;
import dev.lifecycle.broker.ShutdownReport;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeMember;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A per-workspace broker: one JVM per record store directory, serving newline-delimited JSON on a
 * Unix domain socket and owning one backend tree ({@link AppServer} and its MCP servers). Started
 * by {@link dev.lifecycle.examples.cli.Cli} through {@link BrokerClient} (single-flight), never by
 * hand.
 *
 * <p>What the library does for it: the startup bound (the app server must be ready within {@link
 * BrokerLimits#STARTUP}), {@link Connect#withBackend} (a failed initialize ends the app server's
 * whole tree), idle shutdown ({@link BrokerLimits#IDLE}, leases per connection and per request),
 * one ordered shutdown pass however it is triggered, compare-and-clear of its record, and the
 * backend tree's SIGTERM-grace-SIGKILL. The {@link Tether} ends the backend tree if this JVM dies
 * without running the pass (SIGKILL, OOM kill).
 *
 * <p>Requests (one JSON object per line; one reply line each):
 *
 * <pre>
 * {"op":"call","tool":"echo","args":ANY}  -> {"ok":true,"result":ANY}   (through the app server)
 * {"op":"call","tool":"crash"}            -> the app server exits; the broker shuts down
 * {"op":"slow","ms":N}                    -> {"ok":true,"result":"slept N ms"} after N ms
 * {"op":"fail"}                           -> {"ok":false,"error":{"code":1,...}}
 * {"op":"status"}                         -> {"ok":true,"result":{"pid":..,"backend":[..],...}}
 * {"op":"shutdown"}                       -> {"ok":true,"result":"shutting down"}, then the pass
 * </pre>
 *
 * Malformed requests get JSON-RPC style error codes and the broker keeps serving: invalid JSON
 * {@value #PARSE_ERROR}; not an object, or a line over {@value #MAX_REQUEST_BYTES} bytes {@value
 * #INVALID_REQUEST}; unknown op or tool {@value #METHOD_NOT_FOUND}; bad parameters {@value
 * #INVALID_PARAMS}. (Lines over the runtime's own 1 MiB bound close the connection instead.)
 *
 * <p>When the app server exits while the broker serves, the runtime's default {@link
 * dev.lifecycle.broker.BackendExit} policy shuts the broker down: the next CLI starts a fresh one
 * instead of this one answering every call with an error until it idles out.
 */
public final class ExampleBroker {
  public static final int PARSE_ERROR = -32700;
  public static final int INVALID_REQUEST = -32600;
  public static final int METHOD_NOT_FOUND = -32601;
  public static final int INVALID_PARAMS = -32602;
  public static final int BACKEND_ERROR = -32000;

  /** Requests are small; anything longer is a broken or hostile client. */
  public static final int MAX_REQUEST_BYTES = 64 * 1024;

  /** The longest {@code slow} request accepted. */
  public static final long MAX_SLOW_MS = 60_000;

  private final List<ProcessTree> backends = new ArrayList<>();
  private volatile AppServer appServer;

  private ExampleBroker() {}

  /**
   * Runs the broker: the record store and the name come from the environment {@link BrokerClient}
   * gives the process it spawns; limits from the {@code lifecycle.broker.*} system properties.
   */
  public static void main(String[] args) throws Exception {
    BrokerRuntime.Builder builder;
    try {
      builder = BrokerRuntime.builder().fromClientEnvironment();
    } catch (IllegalStateException e) {
      System.err.println(
          "ExampleBroker is started by the example CLI (BrokerClient): " + e.getMessage());
      System.exit(2); // argument error: nothing was started, nothing is signalled
      return;
    }
    ExampleBroker broker = new ExampleBroker();
    BrokerRuntime runtime = builder.startup(broker::startBackend).handler(broker::handle).build();
    try {
      runtime.start(); // serving once this returns; the record is published
    } catch (IOException e) {
      System.err.println("broker failed to start: " + e.getMessage());
      if (runtime.awaitStopped().reason() == ShutdownReason.STARTUP_OVERRUN) {
        return; // the runtime's pass ends this JVM's tree and exits with STARTUP_OVERRUN_EXIT_CODE
      }
      System.exit(1); // the runtime already took down whatever had started
    }
    ShutdownReport report = runtime.awaitStopped(); // the runtime has logged it
    // The pass has terminated the backends (blocking): exiting now cannot cut an escalation short.
    System.exit(report.isClean() ? 0 : 1);
  }

  /** Under the startup bound: spawn the app server and wait until it has initialized. */
  private void startBackend(BrokerRuntime runtime) throws Exception {
    appServer =
        Connect.withBackend(
            () -> {
              // Bound to the tether before it starts: if this JVM is SIGKILLed at any moment the
              // shutdown pass never runs, and the tether's sidecar ends the tree (the MCP servers
              // that ignore SIGTERM included).
              ProcessTree tree =
                  runtime.spawnBackend(AppServer.command(AppServer.configuredMode()));
              synchronized (backends) {
                backends.add(tree);
              }
              return tree;
            },
            tree -> AppServer.initialize(tree.leader()),
            BrokerLimits.CONNECT_CLEANUP.resolve());
  }

  private CompletionStage<String> handle(BrokerRequest request) {
    String line = request.line();
    if (line.getBytes(StandardCharsets.UTF_8).length > MAX_REQUEST_BYTES) {
      return error(INVALID_REQUEST, "request longer than " + MAX_REQUEST_BYTES + " bytes");
    }
    Object parsed;
    try {
      parsed = ExampleJson.parse(line);
    } catch (JsonProcessingException e) {
      return error(PARSE_ERROR, "invalid JSON: " + e.getOriginalMessage());
    }
    if (!(parsed instanceof Map<?, ?> fields)) {
      return error(INVALID_REQUEST, "a request is a JSON object, not " + ExampleJson.write(parsed));
    }
    Object op = fields.get("op");
    if (!(op instanceof String)) {
      return error(INVALID_REQUEST, "missing \"op\"");
    }
    switch ((String) op) {
      case "call":
        return call(request, fields);
      case "slow":
        return slow(fields.get("ms"));
      case "fail":
        return error(1, "failed as requested");
      case "status":
        return ok(status(request.runtime()));
      case "shutdown":
        // Acknowledged first: the pass closes every connection, so it starts after the reply.
        request.afterReply(request.runtime()::shutdown);
        return ok("shutting down");
      default:
        return error(METHOD_NOT_FOUND, "unknown op " + ExampleJson.write(op));
    }
  }

  private CompletionStage<String> call(BrokerRequest request, Map<?, ?> fields) {
    Object tool = fields.get("tool");
    AppServer server = appServer;
    if ("echo".equals(tool)) {
      return server.echo(ExampleJson.write(fields.get("args"))).handle(ExampleBroker::backendReply);
    }
    if ("crash".equals(tool)) {
      // After the reply: the app server's exit ends this broker, and with it this connection.
      request.afterReply(server::crash);
      return ok("app server told to exit");
    }
    return error(METHOD_NOT_FOUND, "unknown tool " + ExampleJson.write(tool));
  }

  private static String backendReply(String echoed, Throwable failure) {
    if (failure != null) {
      Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
      return errorText(BACKEND_ERROR, "backend: " + cause.getMessage());
    }
    try {
      return ExampleJson.write(obj("ok", true, "result", ExampleJson.parse(echoed)));
    } catch (JsonProcessingException e) {
      return errorText(BACKEND_ERROR, "backend sent invalid JSON: " + e.getOriginalMessage());
    }
  }

  private static CompletionStage<String> slow(Object ms) {
    if (!(ms instanceof Integer || ms instanceof Long)
        || ((Number) ms).longValue() < 0
        || ((Number) ms).longValue() > MAX_SLOW_MS) {
      return error(INVALID_PARAMS, "\"ms\" must be an integer in 0.." + MAX_SLOW_MS);
    }
    long n = ((Number) ms).longValue();
    // The request's idle lease is held until this completes, whether or not its client stayed.
    return CompletableFuture.supplyAsync(
        () -> ExampleJson.write(obj("ok", true, "result", "slept " + n + " ms")),
        CompletableFuture.delayedExecutor(n, TimeUnit.MILLISECONDS));
  }

  private Map<String, Object> status(BrokerRuntime runtime) {
    List<Object> pids = new ArrayList<>();
    synchronized (backends) {
      for (ProcessTree tree : backends) {
        for (TreeMember member : tree.view().all()) {
          pids.add(member.pid());
        }
      }
    }
    AppServer server = appServer;
    return obj(
        "pid", ProcessHandle.current().pid(),
        "state", runtime.state().name(),
        "backend", pids,
        "backendAlive", server != null && server.isAlive(),
        "tether", Tether.shared().sidecar().pid());
  }

  private static CompletionStage<String> ok(Object result) {
    return CompletableFuture.completedFuture(ExampleJson.write(obj("ok", true, "result", result)));
  }

  private static CompletionStage<String> error(int code, String message) {
    return CompletableFuture.completedFuture(errorText(code, message));
  }

  static String errorText(int code, String message) {
    return ExampleJson.write(obj("ok", false, "error", obj("code", code, "message", message)));
  }

  /** An ordered JSON object from key, value pairs (values may be null). */
  static Map<String, Object> obj(Object... pairs) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put((String) pairs[i], pairs[i + 1]);
    }
    return map;
  }
}
