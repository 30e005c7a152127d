package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the evidence tier saw of this JVM's new descendants, in samples and checks: each one's
 * parent chain at the time, and the groups, sessions and tree cookies they had. Not thread-safe:
 * the evidence tier calls it under its lock.
 */
final class Sightings {
  private final ProcessPlatform platform;
  private final Baseline baseline;
  private final EnvironmentMarkers markers;
  private final Map<ProcessKey, List<String>> chains = new HashMap<>();
  private final Map<Long, ProcessInfo> rows = new HashMap<>();
  private final Set<Long> groups = new HashSet<>();
  private final Set<Long> sessions = new HashSet<>();
  private final Set<String> cookies = new HashSet<>();
  private Set<Long> listed;

  Sightings(ProcessPlatform platform, Baseline baseline, EnvironmentMarkers markers) {
    this.platform = platform;
    this.baseline = baseline;
    this.markers = markers;
    this.listed = baseline.pids();
  }

  /** Lists the pids and reads only those not listed last time: O(new processes) reads. */
  void sampleNew() {
    List<Long> now = platform.pids();
    Set<Long> fresh = new HashSet<>(now);
    List<Long> unseen = new ArrayList<>();
    for (long pid : now) {
      if (!listed.contains(pid)) {
        unseen.add(pid);
      }
    }
    listed = fresh;
    unseen.sort(null); // parents before children, as pids are handed out upwards
    for (long pid : unseen) {
      platform.info(pid).ifPresent(this::consider);
    }
  }

  /** Records every new descendant of this JVM in {@code table}. */
  void record(ProcessTable table) {
    for (ProcessInfo p : table.descendants(baseline.self())) {
      ProcessKey key = ProcessKey.of(p);
      if (isKnown(key, p)) {
        continue;
      }
      rows.put(p.pid(), p);
      remember(p, key, Rows.chain(table::get, baseline.self(), p, true));
    }
  }

  /** Whether {@code key} was seen as a descendant. */
  boolean saw(ProcessKey key) {
    return chains.containsKey(key);
  }

  /** The parent chain {@code key} had when first seen, or null when it never was. */
  List<String> chainOf(ProcessKey key) {
    return chains.get(key);
  }

  Set<ProcessKey> keys() {
    return Set.copyOf(chains.keySet());
  }

  /** Whether {@code p} is in a group or session (not this JVM's) a seen descendant had. */
  boolean sharesGroupOrSession(ProcessInfo p) {
    return groups.contains(p.pgid()) || sessions.contains(p.sid());
  }

  /** The tree cookies seen descendants carried (never the one this JVM inherited). */
  Set<String> cookies() {
    return cookies;
  }

  private void consider(ProcessInfo p) {
    ProcessKey key = ProcessKey.of(p);
    if (isKnown(key, p)) {
      return;
    }
    if (p.ppid() != baseline.self() && !rows.containsKey(p.ppid())) {
      return;
    }
    rows.put(p.pid(), p);
    remember(
        p, key, Rows.chain(pid -> Optional.ofNullable(rows.get(pid)), baseline.self(), p, false));
  }

  private boolean isKnown(ProcessKey key, ProcessInfo p) {
    return baseline.contains(key) || p.hasExited() || chains.containsKey(key);
  }

  private void remember(ProcessInfo p, ProcessKey key, List<String> chain) {
    chains.put(key, chain);
    if (p.pgid() > 1 && p.pgid() != baseline.selfGroup()) {
      groups.add(p.pgid());
    }
    if (p.sid() > 1 && p.sid() != baseline.selfSession()) {
      sessions.add(p.sid());
    }
    markers.ownCookie(p).ifPresent(cookies::add);
  }
}
