package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessState;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A process that outlived the test that caused it.
 *
 * @param identity pid, start time and boot id: what the cleanup signals
 * @param commandLine the full command line, or the short command name when unreadable
 * @param parentChain the parent chain at detection, nearest first, as {@code "pid (comm)"}
 * @param age how long it has been running, {@link Duration#ZERO} when unknown
 * @param cpuTime CPU time consumed so far
 * @param state scheduler state at detection
 * @param reason the evidence that attributed it to this test
 */
public record LeakedProcess(
    ProcessIdentity identity,
    String commandLine,
    List<String> parentChain,
    Duration age,
    Duration cpuTime,
    ProcessState state,
    Reason reason) {

  /** The evidence that attributed a process to the checked code. */
  public enum Reason {
    /** It is in the check's own cgroup or one below it (exact: forked while the JVM was inside). */
    CGROUP("in the check's cgroup (exact)"),
    /**
     * It belongs to a {@code ProcessTree} this JVM spawned during the check (the library said so).
     */
    LIBRARY_TREE("member of a ProcessTree spawned during the check"),
    /** Its parent chain leads to this JVM. */
    DESCENDANT("descendant of this JVM"),
    /** It was seen as a descendant of this JVM in a sample taken during the test or linger. */
    SEEN_AS_DESCENDANT("seen as a descendant of this JVM during the test"),
    /** It carries an owner marker naming this JVM, or a tree cookie of one of this JVM's spawns. */
    COOKIE("carries a marker or tree cookie of this JVM's spawns"),
    /** It shares a process group or session with, or descends from, an attributed process. */
    RELATIVE("same group/session as, or child of, an attributed process"),
    /**
     * An orphan that joined this JVM's process group after the baseline, in a group no other
     * program shared at the baseline (never used when another JVM is in the group, as with surefire
     * forks).
     */
    JVM_GROUP("orphan in this JVM's private process group");

    private final String text;

    Reason(String text) {
      this.text = text;
    }

    @Override
    public String toString() {
      return text;
    }
  }

  /**
   * Copies {@code parentChain}.
   *
   * @param identity pid, start time and boot id: what the cleanup signals
   * @param commandLine the full command line, or the short command name when unreadable
   * @param parentChain the parent chain at detection, nearest first, as {@code "pid (comm)"}
   * @param age how long it has been running, {@link Duration#ZERO} when unknown
   * @param cpuTime CPU time consumed so far
   * @param state scheduler state at detection
   * @param reason the evidence that attributed it to this test
   * @throws NullPointerException if a component is {@code null}
   */
  public LeakedProcess {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(commandLine, "commandLine");
    parentChain = List.copyOf(parentChain);
    Objects.requireNonNull(age, "age");
    Objects.requireNonNull(cpuTime, "cpuTime");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(reason, "reason");
  }

  /**
   * The leaked process's pid, from its {@code identity}.
   *
   * @return the pid
   */
  public long pid() {
    return identity.pid();
  }

  /**
   * One report line.
   *
   * @return pid, state, age, CPU time, command line, parent chain and why it counts as a leak
   */
  public String describe() {
    return "pid "
        + pid()
        + " ["
        + state
        + "] age "
        + millis(age)
        + ", cpu "
        + millis(cpuTime)
        + ": "
        + commandLine
        + "\n      parents: "
        + (parentChain.isEmpty() ? "(none)" : String.join(" <- ", parentChain))
        + "\n      why: "
        + reason;
  }

  private static String millis(Duration d) {
    return d.toMillis() + " ms";
  }
}
