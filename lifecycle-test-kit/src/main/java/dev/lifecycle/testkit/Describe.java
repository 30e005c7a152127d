package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import java.util.Optional;

/** Formats a process for failure messages: pid, state and command line. */
final class Describe {
  private Describe() {}

  static String pid(ProcessPlatform platform, long pid) {
    Optional<ProcessInfo> row = platform.info(pid);
    String command =
        platform
            .commandLine(pid)
            .filter(l -> !l.isEmpty())
            .map(l -> String.join(" ", l))
            .orElse(row.map(ProcessInfo::command).orElse("?"));
    String state = row.map(r -> r.state().toString()).orElse("GONE");
    String parent = row.map(r -> ", parent " + r.ppid()).orElse("");
    return "pid " + pid + " [" + state + parent + "] " + command;
  }
}
