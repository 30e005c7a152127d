package dev.lifecycle.tether;

import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The lines a tether writes to its sidecar's pipe, one per write: {@code add <pgid> <leader pid>
 * <leader start ticks> <cookie> [<cgroup>]} ({@code -} for an unknown part), {@code remove
 * <cookie>}, and {@code exit} or {@code kill} before the pipe closes. Each is shorter than
 * PIPE_BUF, so concurrent writes never interleave. A cgroup path the script would refuse is left
 * out: the tree is then bound by cookie only.
 */
final class SidecarLines {
  private static final LazyLogger LOG = LazyLogger.of(Tether.class);
  private static final Pattern COOKIE = Pattern.compile("[A-Za-z0-9._-]{8,64}");
  private static final Pattern CGROUP_PATH = Pattern.compile("/[A-Za-z0-9._/-]{1,3000}");

  static final String EXIT = "exit";
  static final String KILL = "kill";

  private SidecarLines() {}

  /** Whether {@code value} is a cookie the script accepts: 8-64 of [A-Za-z0-9._-]. */
  static boolean isCookie(String value) {
    return COOKIE.matcher(value).matches();
  }

  /**
   * The leader's start ticks as the sidecar compares them with {@code /proc}: sent only when the
   * recorded identity is known and still matches, since a reused pid must not lend its start time
   * to a dead leader; {@code -} otherwise.
   */
  static String startTicks(ProcessPlatform platform, ProcessIdentity leader) {
    if (!ProcessPlatform.LINUX_PROC_CLOCK.equals(platform.identityClock())
        || leader.startTime() < 0) {
      return "-";
    }
    Optional<ProcessIdentity> now = platform.identify(leader.pid());
    return now.isPresent() && leader.match(now.get()) != ProcessIdentity.Match.DIFFERENT
        ? Long.toString(now.get().startTime())
        : "-";
  }

  /** An {@code add} line; the cgroup only when its path is one the script accepts. */
  static String add(
      String pgid, String leader, String start, String cookie, Optional<Path> cgroup) {
    String line = "add " + pgid + " " + leader + " " + start + " " + cookie;
    if (cgroup.isPresent()) {
      String path = cgroup.get().toString();
      if (CGROUP_PATH.matcher(path).matches()) {
        line += " " + path;
      } else {
        LOG.warn("cgroup path {} cannot be passed to the tether; bound by cookie only", path);
      }
    }
    return line;
  }

  static String remove(String cookie) {
    return "remove " + cookie;
  }
}
