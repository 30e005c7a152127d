package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.tether.Procs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Kills everything a test started, even when the test failed half-way: every tracked tree by
 * identity (every member it ever saw) and by group while its leader still pins the group id, then
 * every tracked pid by identity. Registered as an extension it does so after each test (after the
 * test's own {@code @AfterEach}).
 */
final class TreeReaper implements AfterEachCallback {
  private final List<ProcessTree> trees = new ArrayList<>();
  private final List<ProcessIdentity> processes = new ArrayList<>();

  <T extends ProcessTree> T track(T tree) {
    synchronized (this) {
      trees.add(tree);
    }
    return tree;
  }

  synchronized void track(ProcessIdentity identity) {
    processes.add(identity);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    killAll();
  }

  synchronized void killAll() {
    ProcessPlatform posix = ProcessPlatform.get();
    for (ProcessTree tree : trees) {
      try {
        ProcessIdentity leader = tree.leaderIdentity();
        Optional<ProcessIdentity> now = posix.identify(leader.pid());
        if (tree.processGroupId() > 0
            && posix.capabilities().groupSignals()
            && now.isPresent()
            && leader.match(now.get()) != ProcessIdentity.Match.DIFFERENT) {
          posix.signalGroup(tree.processGroupId(), Signal.KILL);
        }
        for (TreeMember member : tree.view().all()) {
          posix.signal(member.identity(), Signal.KILL);
        }
        tree.terminate(Duration.ZERO); // reaps the leader (a no-op report if already terminated)
      } catch (RuntimeException e) {
        System.err.println("cleanup of " + tree + " failed: " + e);
      }
    }
    Procs.kill(processes);
    trees.clear();
    processes.clear();
  }
}
