package dev.lifecycle.inventory;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.cgroup.OwnedCgroups;
import java.util.List;
import java.util.Optional;

/** Judges the owner a tree names, on proof only: alive, proven gone, or not provable. */
final class Owners {
  private final ProcessPlatform platform;

  Owners(ProcessPlatform platform) {
    this.platform = platform;
  }

  /** The owner of a tree found as {@code kind} and named {@code id}; tethers by their sidecar. */
  Owner of(FoundTree.Kind kind, String id, ProcessInfo oldest, String boot) {
    return switch (kind) {
      case CGROUP -> cgroupOwner(id, boot);
      case SESSION -> cookieOwner(id, boot);
      case TETHER -> tetherOwner(oldest, boot);
    };
  }

  Owner cgroupOwner(String name, String boot) {
    Optional<long[]> named = OwnedCgroups.owner(name);
    if (named.isEmpty()) {
      return new Owner(Optional.empty(), OwnerVerdict.NOT_PROVABLE, "not an owned cgroup's name");
    }
    long[] owner = named.get();
    // A cgroup ends with its boot, so its owner ran in this one; 0 is "start time unknown".
    ProcessIdentity identity =
        new ProcessIdentity(
            owner[0], owner[1] > 0 ? owner[1] : ProcessIdentity.UNKNOWN_START, boot);
    return judge(identity);
  }

  Owner cookieOwner(String cookie, String boot) {
    Optional<ProcessIdentity> named = SpawnOptions.cookieOwner(cookie);
    if (named.isEmpty()) {
      return new Owner(
          Optional.empty(),
          OwnerVerdict.NOT_PROVABLE,
          "the cookie names no owner (an older lifecycle, or set by hand)");
    }
    ProcessIdentity identity = named.get();
    if (!boot.isEmpty() && !identity.bootId().equals(boot)) {
      return new Owner(named, OwnerVerdict.GONE, "proven gone: recorded in another boot");
    }
    return judge(identity);
  }

  private Owner tetherOwner(ProcessInfo sidecar, String boot) {
    List<String> argv = platform.commandLine(sidecar.pid()).orElse(List.of());
    long pid = Tethers.ownerPid(argv);
    if (pid <= 0) {
      return new Owner(Optional.empty(), OwnerVerdict.NOT_PROVABLE, "owner pid unreadable");
    }
    // The owner started the sidecar, so it started before it: a process at its pid that started
    // later is another one.
    Optional<ProcessInfo> at = platform.info(pid);
    ProcessIdentity recorded = new ProcessIdentity(pid, ProcessIdentity.UNKNOWN_START, boot);
    if (at.isEmpty() || at.get().hasExited()) {
      return judge(recorded);
    }
    if (at.get().startTime() > sidecar.startTime()) {
      return new Owner(
          Optional.of(recorded),
          OwnerVerdict.GONE,
          "proven gone: pid " + pid + " now belongs to a process started after the sidecar");
    }
    return new Owner(
        Optional.of(at.get().identity(boot)), OwnerVerdict.ALIVE, "alive (pid " + pid + ")");
  }

  private Owner judge(ProcessIdentity identity) {
    Liveness.Verdict verdict = Liveness.judge(platform, identity);
    Optional<ProcessIdentity> named = Optional.of(identity);
    return switch (verdict) {
      case ALIVE -> new Owner(named, OwnerVerdict.ALIVE, "alive (pid " + identity.pid() + ")");
      case GONE ->
          new Owner(
              named,
              OwnerVerdict.GONE,
              "proven gone: no process " + identity.pid() + " (or only its zombie)");
      case PID_REUSED ->
          new Owner(
              named,
              OwnerVerdict.GONE,
              "proven gone: pid " + identity.pid() + " now belongs to another process");
      case ALIVE_NOT_PERMITTED ->
          new Owner(
              named,
              OwnerVerdict.NOT_PROVABLE,
              "pid " + identity.pid() + " is alive and cannot be identified (EPERM, hidepid)");
    };
  }
}
