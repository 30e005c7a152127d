package dev.lifecycle.inventory;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.SpawnOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One snapshot of the machine and what every finder needs of it: the live rows, the cookie each
 * process carries, and the shells that may be tether sidecars.
 */
final class FirstLook {
  private static final long KTHREADD = 2;

  final ProcessTable table;
  final long self;
  final Map<Long, ProcessInfo> live = new HashMap<>();
  final Map<Long, String> cookieOf = new HashMap<>();
  final List<ProcessInfo> shells = new ArrayList<>();

  private FirstLook(ProcessTable table, long self) {
    this.table = table;
    this.self = self;
  }

  static FirstLook take(ProcessPlatform platform) {
    FirstLook look = new FirstLook(platform.snapshot(), platform.self().pid());
    for (ProcessInfo row : look.table.all()) {
      if (row.hasExited()) {
        continue;
      }
      long pid = row.pid();
      look.live.put(pid, row);
      if (pid <= KTHREADD || row.ppid() == KTHREADD || pid == look.self) {
        continue;
      }
      Optional<String> cookie = platform.environmentValue(pid, SpawnOptions.COOKIE_VARIABLE);
      if (cookie.isPresent() && !cookie.get().isEmpty()) {
        look.cookieOf.put(pid, cookie.get());
      }
      if (isShell(row.command())) {
        look.shells.add(row);
      }
    }
    return look;
  }

  private static boolean isShell(String command) {
    return command.equals("sh") || command.equals("dash") || command.equals("bash");
  }
}
