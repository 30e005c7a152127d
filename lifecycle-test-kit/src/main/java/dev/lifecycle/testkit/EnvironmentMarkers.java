package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The two environment entries the evidence tier reads (a tree cookie and the owner marker), read
 * once per process. Not thread-safe: the evidence tier calls it under its lock.
 */
final class EnvironmentMarkers {
  private final ProcessPlatform platform;
  private final String owner = FixtureChild.ownerValue();
  private final Optional<String> inheritedCookie =
      Optional.ofNullable(System.getenv(SpawnOptions.COOKIE_VARIABLE));
  private final Map<ProcessKey, Markers> read = new HashMap<>();

  private record Markers(Optional<String> cookie, Optional<String> owner) {}

  EnvironmentMarkers(ProcessPlatform platform) {
    this.platform = platform;
  }

  /** The cookie this JVM inherited itself: no evidence. */
  Optional<String> inheritedCookie() {
    return inheritedCookie;
  }

  /** The tree cookie of {@code p}, unless it is the one this JVM inherited. */
  Optional<String> ownCookie(ProcessInfo p) {
    return markers(p).cookie().filter(c -> !inheritedCookie.equals(Optional.of(c)));
  }

  /** Whether {@code p} carries an owner marker naming this JVM or one of {@code cookies}. */
  boolean names(ProcessInfo p, Set<String> cookies) {
    Markers m = markers(p);
    return m.owner().filter(owner::equals).isPresent()
        || m.cookie().filter(cookies::contains).isPresent();
  }

  private Markers markers(ProcessInfo p) {
    ProcessKey key = ProcessKey.of(p);
    Markers known = read.get(key);
    if (known != null) {
      return known;
    }
    Markers now =
        new Markers(
            platform.environmentValue(p.pid(), SpawnOptions.COOKIE_VARIABLE),
            platform.environmentValue(p.pid(), FixtureChild.OWNER_VARIABLE));
    // An empty environment is a process inside execve (or a kernel thread): not proof of absence.
    if (now.cookie().isPresent() || now.owner().isPresent() || !hasEmptyEnvironment(p.pid())) {
      read.put(key, now);
    }
    return now;
  }

  /** Whether the environment area reads as empty: inside execve, a kernel thread or env -i. */
  private boolean hasEmptyEnvironment(long pid) {
    // The entry asked for does not matter: only the area's state is looked at.
    ProcessPlatform.EnvironmentEntry entry =
        platform.environmentEntry(pid, SpawnOptions.COOKIE_VARIABLE, "");
    return entry == ProcessPlatform.EnvironmentEntry.EMPTY
        || entry == ProcessPlatform.EnvironmentEntry.INSIDE_EXEC;
  }
}
