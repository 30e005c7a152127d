package dev.lifecycle.examples.cli;

import java.time.Duration;
import java.util.Optional;

/**
 * Notices that the process which started this one has died, by a bounded check: every {@link
 * #PERIOD} it compares this process's parent pid with the one it had at start (a dead parent's
 * children are re-parented to init or a subreaper). Chosen over the alternatives because the JDK
 * offers no {@code PR_SET_PDEATHSIG}, and stdin EOF is ambiguous for a CLI ({@code </dev/null} and
 * a closed stdin are normal and read as EOF at once, while a caller's terminal outlives the
 * caller). Costs one {@code /proc/self/stat} read per period, only while a call is waiting.
 */
final class CallerWatch implements AutoCloseable {
  /** Detection within a quarter second; about four cheap wake-ups a second while waiting. */
  static final Duration PERIOD = Duration.ofMillis(250);

  private final Thread thread;

  private CallerWatch(Thread thread) {
    this.thread = thread;
  }

  /**
   * Runs {@code onCallerDeath} (once, on a daemon thread) when the parent changes. Watches nothing
   * when this process has no parent to lose (started by init).
   */
  static CallerWatch start(Runnable onCallerDeath) {
    long parent = parentPid().orElse(1L);
    Thread watching =
        new Thread(
            () -> {
              try {
                while (parent > 1) {
                  Thread.sleep(PERIOD.toMillis());
                  if (parentPid().orElse(1L) != parent) {
                    onCallerDeath.run();
                    return;
                  }
                }
              } catch (InterruptedException closed) {
                // The call finished: stop watching.
              }
            },
            "cli-caller-watch");
    watching.setDaemon(true);
    watching.start();
    return new CallerWatch(watching);
  }

  private static Optional<Long> parentPid() {
    return ProcessHandle.current().parent().map(ProcessHandle::pid);
  }

  @Override
  public void close() {
    thread.interrupt();
  }
}
