package dev.lifecycle.mcp;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
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
  static List<Survivor> awaitNone(String tag, Duration bound) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    long pause = 10;
    List<Survivor> now = alive(tag);
    while (!now.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(pause);
      pause = Math.min(pause * 2, 200);
      now = alive(tag);
    }
    return now;
  }

  /** SIGKILLs every survivor whose identity still matches, then waits for them to be gone. */
  static void kill(List<Survivor> survivors) throws InterruptedException {
    ProcessPlatform platform = ProcessPlatform.get();
    for (Survivor s : survivors) {
      platform.signal(s.identity(), Signal.KILL); // identity-checked by the platform
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    for (Survivor s : survivors) {
      while (platform.probe(s.identity()) == Liveness.ALIVE && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    }
  }

  /** Kills whatever carries {@code tag} (test cleanup); returns how many there were. */
  static int cleanUp(String tag) throws InterruptedException {
    List<Survivor> left = alive(tag);
    kill(left);
    return left.size();
  }
}
