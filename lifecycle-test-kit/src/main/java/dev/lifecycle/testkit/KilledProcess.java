package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessIdentity;
import java.util.Objects;

/**
 * One kill a leak check made: every process a check signals is listed in its {@link LeakReport}.
 *
 * @param identity the process (pid, start time, boot id)
 * @param commandLine its command line when killed
 * @param how the mechanism: {@code "cgroup.kill"}, {@code "SIGKILL (identity-checked)"}, {@code
 *     "killpg <pgid>"}
 * @param foundWhileKilling true for a process that was not in the leak list but appeared (a child
 *     forked by a leak) while the leaks were being killed
 */
public record KilledProcess(
    ProcessIdentity identity, String commandLine, String how, boolean foundWhileKilling) {
  /**
   * Checks the components.
   *
   * @param identity the process (pid, start time, boot id)
   * @param commandLine its command line when killed
   * @param how the mechanism: {@code "cgroup.kill"}, {@code "SIGKILL (identity-checked)"}, {@code
   *     "killpg <pgid>"}
   * @param foundWhileKilling true for a process that was not in the leak list but appeared (a child
   *     forked by a leak) while the leaks were being killed
   * @throws NullPointerException if a component is {@code null}
   */
  public KilledProcess {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(commandLine, "commandLine");
    Objects.requireNonNull(how, "how");
  }

  /**
   * One report line.
   *
   * @return pid, mechanism, whether it appeared while killing, and command line
   */
  public String describe() {
    return "pid "
        + identity.pid()
        + " by "
        + how
        + (foundWhileKilling ? " (appeared while killing: " : " (")
        + commandLine
        + ")";
  }
}
