package dev.lifecycle.process.cgroup;

import dev.lifecycle.internal.Unguessable;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.procfs.ProcFs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names of the cgroups this library creates, which carry their owner's identity, and the cleanup of
 * those whose owner is gone. A name is {@code lifecycle-<owner pid>-<owner start ticks>-<n>-<r>}
 * ({@code n} a per-JVM counter, {@code r} random hex): unique per creation, and it says who owns
 * it. Only EMPTY cgroups of a dead owner are ever removed, so a live owner's cgroup and one not
 * named by us are never touched. Thread-safe.
 */
public final class OwnedCgroups {
  /** Every cgroup the library creates starts with this. */
  public static final String PREFIX = "lifecycle-";

  private static final Logger LOG = LoggerFactory.getLogger(OwnedCgroups.class);
  private static final Pattern NAME =
      Pattern.compile("lifecycle-([0-9]{1,10})-([0-9]{1,20})-[0-9]+-[0-9a-f]{8}");
  private static final AtomicLong COUNTER = new AtomicLong();

  private OwnedCgroups() {}

  /**
   * A fresh name owned by {@code owner} (its pid and start ticks).
   *
   * @param owner the process that will own the cgroup, usually this JVM
   * @return {@code lifecycle-<pid>-<start>-<counter>-<random>}, unique within this JVM
   */
  public static String newName(ProcessIdentity owner) {
    return PREFIX
        + owner.pid()
        + "-"
        + Math.max(0, owner.startTime())
        + "-"
        + COUNTER.incrementAndGet()
        + "-"
        + hex8((int) Unguessable.nextLong());
  }

  /** Eight lower-case hex digits, without Formatter (costly to start in a short-lived JVM). */
  private static String hex8(int value) {
    String hex = Integer.toHexString(value);
    return "00000000".substring(hex.length()) + hex;
  }

  /**
   * The owner a name of ours records (pid and start ticks), or empty for other names.
   *
   * @param name a cgroup directory name
   * @return {@code {pid, startTicks}}, or empty when {@code name} is not one of ours
   */
  public static Optional<long[]> owner(String name) {
    Matcher m = NAME.matcher(name);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether the owner named by {@code name} is proven gone: its pid names no process, or names one
   * with another start time. An unreadable answer is not proof.
   *
   * @param name a cgroup directory name
   * @return {@code true} only on proof; {@code false} for names that are not ours
   */
  public static boolean ownerGone(String name) {
    Optional<long[]> owner = owner(name);
    if (owner.isEmpty() || owner.get()[0] <= 0) {
      return false;
    }
    long pid = owner.get()[0];
    Optional<ProcessIdentity> now = ProcFs.identity(pid);
    if (now.isPresent()) {
      return now.get().startTime() >= 0 && now.get().startTime() != owner.get()[1];
    }
    return ProcFs.isAvailable() && !Files.exists(Path.of("/proc/" + pid));
  }

  /**
   * Removes the empty cgroups of ours directly under {@code parent} whose owner is proven gone
   * (left by a JVM that was SIGKILLed before it removed them). Populated ones are left (and
   * logged): their processes are the tether's business, and removing would fail anyway.
   *
   * @param parent the cgroup whose direct children are looked at
   * @return how many were removed
   */
  public static int removeStale(Cgroup parent) {
    int removed = 0;
    try {
      for (Cgroup child : parent.children()) {
        if (!child.name().startsWith(PREFIX) || !ownerGone(child.name())) {
          continue;
        }
        try {
          if (!child.isPopulated() && child.remove()) {
            removed++;
          } else {
            LOG.warn("cgroup {} of a dead owner still holds processes; left alone", child);
          }
        } catch (IOException e) {
          LOG.debug("cannot remove stale cgroup {}", child, e);
        }
      }
    } catch (IOException e) {
      LOG.debug("cannot list {} for stale cgroups", parent, e);
    }
    return removed;
  }
}
