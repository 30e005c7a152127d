package dev.lifecycle.mcp;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The /proc check: the live (non-zombie) processes whose environment carries one test's {@link
 * McpServers#TAG}, whoever started them and wherever they were reparented to. Cleanup signals each
 * by pid only after re-checking its identity (pid and start time).
 */
final class Tagged {
  record Survivor(ProcessIdentity identity, String command) {
    @Override
    public String toString() {
      return identity.pid() + " " + command;
    }
  }

  private Tagged() {}

  static List<Survivor> alive(String tag) {
    List<Survivor> out = new ArrayList<>();
    for (long pid : ProcFs.findByEnvironment(McpServers.TAG, tag)) {
      Optional<ProcessInfo> info = ProcFs.stat(pid);
      Optional<ProcessIdentity> identity = ProcFs.identity(pid);
      if (info.isEmpty() || identity.isEmpty() || info.get().state().hasExited()) {
        continue;
      }
      String command =
          ProcFs.commandLine(pid).map(args -> String.join(" ", args)).orElse(info.get().command());
      out.add(new Survivor(identity.get(), command));
    }
    return out;
  }

  /** Polls until nothing tagged is alive or {@code bound} passed; returns what is still alive. */
  static List<Survivor> awaitNone(String tag, Duration bound) {
    try {
      return Await.until(
          bound, "nothing tagged " + tag + " alive", () -> alive(tag), List::isEmpty);
    } catch (AssertionError stillAlive) {
      return alive(tag); // the caller reports them
    }
  }

  /** SIGKILLs every survivor whose identity still matches, then waits (bounded) for them to go. */
  static void kill(List<Survivor> survivors) {
    ProcessPlatform platform = ProcessPlatform.get();
    for (Survivor s : survivors) {
      platform.signal(s.identity(), Signal.KILL); // identity-checked by the platform
    }
    Await.until(
        Duration.ofSeconds(10),
        "killed survivors gone",
        () -> survivors.stream().noneMatch(s -> platform.probe(s.identity()) == Liveness.ALIVE));
  }

  /** Kills whatever carries {@code tag} (test cleanup); returns how many there were. */
  static int cleanUp(String tag) {
    List<Survivor> left = alive(tag);
    kill(left);
    return left.size();
  }
}
