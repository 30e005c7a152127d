package dev.lifecycle.mcp;

import dev.lifecycle.time.IdleTracker;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests in flight on one transport, in both directions: ours awaiting the server's answer
 * and the server's awaiting ours. Each holds an {@link IdleTracker} lease, so the idle limit counts
 * from the moment nothing is in flight. It also knows which request is {@code initialize}, whose
 * answer ends the startup limit. Thread-safe.
 */
final class InFlight {
  /** An outgoing request: its id as sent, its method. */
  record Request(Object id, String method) {}

  private final IdleTracker idle;
  private final Map<String, Entry> outgoing = new ConcurrentHashMap<>();
  private final Map<String, IdleTracker.Lease> incoming = new ConcurrentHashMap<>();

  private record Entry(Request request, IdleTracker.Lease lease) {}

  private volatile String initializeKey; // the last initialize request sent

  InFlight(IdleTracker idle) {
    this.idle = idle;
  }

  void sent(Object id, String method) {
    if (McpSchema.METHOD_INITIALIZE.equals(method)) {
      initializeKey = key(id);
    }
    Entry previous = outgoing.put(key(id), new Entry(new Request(id, method), idle.acquire()));
    if (previous != null) {
      previous.lease().close();
    }
  }

  /**
   * The server answered (or the request could not be written): the request is no longer in flight.
   * Returns whether it was (false when it was answered or drained before).
   */
  boolean answered(Object id) {
    Entry entry = outgoing.remove(key(id));
    if (entry == null) {
      return false;
    }
    entry.lease().close();
    return true;
  }

  /** Whether {@code id} is that of the last {@code initialize} request sent. */
  boolean isInitialize(Object id) {
    return key(id).equals(initializeKey);
  }

  void received(Object id) {
    IdleTracker.Lease previous = incoming.put(key(id), idle.acquire());
    if (previous != null) {
      previous.close();
    }
  }

  void replied(Object id) {
    IdleTracker.Lease lease = incoming.remove(key(id));
    if (lease != null) {
      lease.close();
    }
  }

  /** Removes and returns every outgoing request still waiting for an answer. */
  List<Request> drainOutgoing() {
    List<Request> drained = new ArrayList<>();
    for (String key : List.copyOf(outgoing.keySet())) {
      Entry entry = outgoing.remove(key);
      if (entry != null) {
        entry.lease().close();
        drained.add(entry.request());
      }
    }
    return drained;
  }

  int size() {
    return outgoing.size() + incoming.size();
  }

  // JSON-RPC ids are strings or numbers; a number may come back as another boxed type.
  private static String key(Object id) {
    return (id instanceof Number ? "n:" : "s:") + id;
  }
}
