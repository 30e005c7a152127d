package dev.lifecycle.examples.cli;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Notices that the process which called this CLI has died, by a bounded check: every {@link
 * #PERIOD} it checks that the chain of parents from this process up to the caller is unchanged (a
 * dead process's children are re-parented to init or a subreaper). Chosen over the alternatives
 * because the JDK offers no {@code PR_SET_PDEATHSIG}, and stdin EOF is ambiguous for a CLI ({@code
 * </dev/null} and a closed stdin are normal and read as EOF at once, while a caller's terminal
 * outlives the caller). Costs one {@code /proc/<pid>/stat} read per link and period, only while a
 * call is waiting.
 *
 * <p>The caller is the pid in the system property {@value #CALLER_PROPERTY} when a launcher set it
 * (the launcher script passes its own parent, so a caller that dies while the JVM starts is noticed
 * in the first check), else this process's parent at start: without a launcher, a caller that dies
 * before {@code main} runs (the JVM's start-up, about 0.1 s) goes unnoticed.
 */
final class CallerWatch implements AutoCloseable {
  /** Detection within a quarter second; about four cheap wake-ups a second while waiting. */
  static final Duration PERIOD = Duration.ofMillis(250);

  /** System property with the caller's pid, set by a launcher; absent: the parent at start. */
  static final String CALLER_PROPERTY = "example.cli.caller";

  /** How far up a named caller may be (a launcher's own shell sits between in a training run). */
  private static final int MAX_DEPTH = 8;

  private final Thread thread;

  private CallerWatch(Thread thread) {
    this.thread = thread;
  }

  /**
   * Runs {@code onCallerDeath} (once, on a daemon thread) when the caller is gone, at once when it
   * is no longer among this process's ancestors at start. Watches nothing when there is no caller
   * to lose (started by init, or a launcher started by init).
   */
  static CallerWatch start(Runnable onCallerDeath) {
    long caller = Long.getLong(CALLER_PROPERTY, -1L);
    List<Long> chain = caller > 0 ? ancestorsUpTo(caller) : parentOnly();
    boolean goneAlready = caller > 1 && chain.isEmpty();
    Thread watching =
        new Thread(
            () -> {
              try {
                if (goneAlready) {
                  onCallerDeath.run();
                  return;
                }
                while (!chain.isEmpty()) {
                  Thread.sleep(PERIOD.toMillis());
                  if (!intact(chain)) {
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

  /** This process's parent, or nothing to watch when that is init. */
  private static List<Long> parentOnly() {
    long parent = parentOf(self()).orElse(1L);
    return parent > 1 ? List.of(parent) : List.of();
  }

  /** The ancestors from the parent up to {@code caller}; empty when it is not among them. */
  private static List<Long> ancestorsUpTo(long caller) {
    if (caller == 1) {
      return List.of();
    }
    List<Long> chain = new ArrayList<>();
    long pid = self();
    for (int depth = 0; depth < MAX_DEPTH; depth++) {
      Optional<Long> parent = parentOf(pid);
      if (parent.isEmpty() || parent.get() <= 1) {
        return List.of();
      }
      chain.add(parent.get());
      if (parent.get() == caller) {
        return List.copyOf(chain);
      }
      pid = parent.get();
    }
    return List.of();
  }

  /** Whether every link still has the parent it had at start. */
  private static boolean intact(List<Long> chain) {
    long child = self();
    for (long parent : chain) {
      if (parentOf(child).orElse(-1L) != parent) {
        return false;
      }
      child = parent;
    }
    return true;
  }

  /** Through the library's platform: it reads /proc where that is exact, loading nothing more. */
  private static Optional<Long> parentOf(long pid) {
    return ProcessPlatform.get().info(pid).map(ProcessInfo::ppid);
  }

  private static long self() {
    return ProcessPlatform.get().self().pid();
  }

  @Override
  public void close() {
    thread.interrupt();
  }
}
