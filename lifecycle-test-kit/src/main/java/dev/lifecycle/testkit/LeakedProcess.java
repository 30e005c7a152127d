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
 * @param reason why it was attributed to this test
 */
public record LeakedProcess(
    ProcessIdentity identity,
    String commandLine,
    List<String> parentChain,
    Duration age,
    Duration cpuTime,
    ProcessState state,
    Reason reason) {

  /** Why a new process was attributed to the test. */
  public enum Reason {
    /** Its parent chain leads to this JVM. */
    DESCENDANT("descendant of this JVM"),
    /** It was seen as a descendant of this JVM in a sample taken during the test or linger. */
    SEEN_AS_DESCENDANT("seen as a descendant of this JVM during the test"),
    /** It carries a tree cookie or owner marker exported by this JVM's spawns. */
    COOKIE("carries a cookie exported by this JVM"),
    /** It shares a process group or session with, or descends from, an attributed process. */
    RELATIVE("same group/session as, or child of, an attributed process"),
    /** It joined this JVM's own process group after the baseline. */
    JVM_GROUP("joined this JVM's process group");

    private final String text;

    Reason(String text) {
      this.text = text;
    }

    @Override
    public String toString() {
      return text;
    }
  }

  public LeakedProcess {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(commandLine, "commandLine");
    parentChain = List.copyOf(parentChain);
    Objects.requireNonNull(age, "age");
    Objects.requireNonNull(cpuTime, "cpuTime");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(reason, "reason");
  }

  public long pid() {
    return identity.pid();
  }

  /** One report line. */
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
