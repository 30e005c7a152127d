package dev.lifecycle.posix;

import com.sun.jna.Memory;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.SignalResult;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.procfs.ProcLiveness;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A child started by {@link PosixPlatform}. Only this object ever waits on its pid, and only with
 * {@code waitid} on that pid (never {@code waitpid(-1)}), so neither it nor the JDK's own reaper
 * can take the other's exit statuses.
 *
 * <p>Signals are safe by construction: until the child is reaped its pid cannot be reused, and
 * reaping and signalling both happen under this object's lock, so a signal either reaches this
 * child (possibly a zombie) or is not sent. With a pidfd the signal goes through {@code
 * pidfd_send_signal}, which cannot reach another process at all. The pidfd is closed exactly once,
 * when the child is reaped.
 */
final class PosixProcess extends SupervisedProcess {
  /** With CAP_KILL a null signal cannot fail with EPERM: the probe then skips it. */
  private static final boolean SIGNALS_ANY = ProcLiveness.holdsKillCapability();

  private final OsConstants os;
  private final int pid;
  private final boolean keepUnreaped;
  private final OutputStream stdin;
  private final InputStream stdout;
  private final InputStream stderr;
  private final Consumer<PosixProcess> onReaped;
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();

  private int pidfd; // guarded by this; -1 when none or closed
  private boolean reaped; // guarded by this

  PosixProcess(
      OsConstants os,
      int pid,
      int pidfd,
      ProcessIdentity identity,
      long processGroupId,
      String cookie,
      boolean keepUnreaped,
      Stdio stdio,
      Consumer<PosixProcess> onReaped) {
    super(identity, processGroupId, cookie);
    this.os = os;
    this.pid = pid;
    this.pidfd = pidfd;
    this.keepUnreaped = keepUnreaped;
    this.stdin = stdio.stdin();
    this.stdout = stdio.stdout();
    this.stderr = stdio.stderr();
    this.onReaped = onReaped;
  }

  /** Whether the pid has been released (after which it must never be signalled again). */
  synchronized boolean isReaped() {
    return reaped;
  }

  /**
   * This child's liveness from its own state, under its lock so it cannot be reaped meanwhile (its
   * pid cannot be reused until then); {@code null} when the caller must ask the generic way
   * (reaped, or no pidfd to check for a zombie).
   */
  synchronized Liveness probe() {
    if (reaped) {
      return null;
    }
    if (exit.isDone()) {
      return Liveness.GONE; // exited and held unreaped: a zombie
    }
    if (!SIGNALS_ANY && LibC.kill(pid, 0) != 0) { // a child that changed its uid reads EPERM
      int errno = LibC.errno();
      return errno == OsConstants.EPERM
          ? Liveness.ALIVE_NOT_OURS
          : errno == OsConstants.ESRCH ? Liveness.GONE : null;
    }
    int exited = pidfd >= 0 ? Pidfds.exited(pidfd) : -1;
    return exited < 0 ? null : exited == 1 ? Liveness.GONE : Liveness.ALIVE;
  }

  synchronized int pidfd() {
    return pidfd;
  }

  /** Blocks until the child has exited, without reaping it (the per-child-thread watcher). */
  void awaitExit() {
    Memory info = new Memory(OsConstants.SIGINFO_SIZE);
    while (LibC.waitid(OsConstants.P_PID, pid, info, OsConstants.WEXITED | os.waitNoWait) != 0
        && LibC.errno() == OsConstants.EINTR) {
      // retry: a signal handler ran on this thread
    }
  }

  /**
   * Collects the exit status if the child has exited: reaps it, or with {@code keepLeaderUnreaped}
   * only observes it (WNOWAIT) so the pid and process group id stay pinned until {@link #reap()}.
   * Never blocks.
   *
   * @return whether the exit was collected
   */
  boolean collectExit() {
    Integer value;
    synchronized (this) {
      if (exit.isDone()) {
        return true;
      }
      Memory info = new Memory(OsConstants.SIGINFO_SIZE);
      info.clear();
      int options = OsConstants.WEXITED | OsConstants.WNOHANG | (keepUnreaped ? os.waitNoWait : 0);
      if (waitid(info, options) != 0) {
        if (LibC.errno() != OsConstants.ECHILD) {
          return false;
        }
        // Someone else reaped our child (SIGCHLD ignored, or a stray waitpid(-1)): the status is
        // lost and the pid is free. Report it as unknown rather than inventing a code.
        value = -1;
        markReaped();
      } else if (os.waitedPid(info) == 0) {
        return false; // still running
      } else {
        value = os.exitValue(info);
        if (!keepUnreaped) {
          markReaped();
        }
      }
    }
    exit.complete(value); // outside the lock: waiters wake up and may call reap() at once
    ExitAwareStreams.releaseAfterExit(stdin, stdout, stderr); // like the JDK: no fd outlives it
    return true;
  }

  private int waitid(Memory info, int options) {
    return pidfd >= 0
        ? LibC.waitid(OsConstants.P_PIDFD, pidfd, info, options)
        : LibC.waitid(OsConstants.P_PID, pid, info, options);
  }

  private void markReaped() {
    reaped = true;
    if (pidfd >= 0) {
      LibC.close(pidfd);
      pidfd = -1;
    }
    onReaped.accept(this);
  }

  @Override
  public boolean reap() {
    // The exit watcher may not have run yet: a caller that saw the zombie (a termination's last
    // step) collects the exit itself, or nothing would reap this child later.
    if (!collectExit()) {
      return false; // still running
    }
    synchronized (this) {
      if (!reaped) {
        Memory info = new Memory(OsConstants.SIGINFO_SIZE);
        while (waitid(info, OsConstants.WEXITED | OsConstants.WNOHANG) != 0
            && LibC.errno() == OsConstants.EINTR) {
          // retry
        }
        markReaped(); // a zombie is always collectable; ECHILD means someone else already did
      }
      return true;
    }
  }

  /** Sends {@code signo} to this child unless it has been reaped (its pid may be reused then). */
  synchronized SignalResult send(int signo) {
    if (reaped) {
      return SignalResult.GONE;
    }
    if (pidfd >= 0) {
      if (LinuxC.pidfdSendSignal(pidfd, signo) == 0) {
        return SignalResult.DELIVERED;
      }
      int errno = LibC.errno();
      if (errno == OsConstants.ESRCH) {
        return SignalResult.GONE;
      }
      // EPERM/ENOSYS here can be a seccomp filter: fall back to kill, safe while unreaped.
    }
    if (LibC.kill(pid, signo) == 0) {
      return SignalResult.DELIVERED;
    }
    return LibC.errno() == OsConstants.EPERM ? SignalResult.NOT_PERMITTED : SignalResult.GONE;
  }

  @Override
  public OutputStream getOutputStream() {
    return stdin;
  }

  @Override
  public InputStream getInputStream() {
    return stdout;
  }

  @Override
  public InputStream getErrorStream() {
    return stderr;
  }

  @Override
  public int waitFor() throws InterruptedException {
    try {
      return exit.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  @Override
  public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
    if (exit.isDone()) {
      return true;
    }
    if (timeout <= 0) {
      return false;
    }
    try {
      exit.get(timeout, unit);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  @Override
  public int exitValue() {
    Integer value = exit.getNow(null);
    if (value == null) {
      throw new IllegalThreadStateException("process " + pid + " has not exited");
    }
    return value;
  }

  @Override
  public void destroy() {
    send(os.signal(dev.lifecycle.process.Signal.TERM));
  }

  @Override
  public Process destroyForcibly() {
    send(os.signal(dev.lifecycle.process.Signal.KILL));
    return this;
  }

  @Override
  public boolean supportsNormalTermination() {
    return true;
  }

  @Override
  public boolean isAlive() {
    return !exit.isDone();
  }

  @Override
  public long pid() {
    return pid;
  }

  /**
   * Completes after the exit was collected. Like the JDK, dependent actions run in the common pool,
   * never on the exit-watcher thread, so a slow callback cannot delay other children's exits.
   */
  @Override
  public CompletableFuture<Process> onExit() {
    return exit.thenApplyAsync(code -> this);
  }

  /**
   * {@link ProcessHandle#of(long)} for this pid while it is still ours (running or an unreaped
   * zombie). Once reaped the pid may name another process, so there is no handle to give.
   */
  @Override
  public synchronized ProcessHandle toHandle() {
    if (reaped) {
      throw new UnsupportedOperationException(
          "process " + pid + " has exited and was reaped; its pid may belong to another process");
    }
    return ProcessHandle.of(pid)
        .orElseThrow(() -> new UnsupportedOperationException("no process handle for " + pid));
  }

  @Override
  public String toString() {
    Integer value = exit.getNow(null);
    return "PosixProcess[pid="
        + pid
        + ", pgid="
        + processGroupId()
        + (value == null ? ", running" : ", exitValue=" + value)
        + "]";
  }
}
