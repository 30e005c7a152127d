package dev.lifecycle.process.jdk;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.SupervisedProcess;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A {@link ProcessBuilder} child presented as a {@link SupervisedProcess}; the JDK reaps it. */
final class JdkSupervisedProcess extends SupervisedProcess {
  private final Process delegate;

  JdkSupervisedProcess(
      Process delegate, ProcessIdentity identity, long processGroupId, String cookie) {
    super(identity, processGroupId, cookie);
    this.delegate = delegate;
  }

  @Override
  public boolean reap() {
    return !delegate.isAlive(); // the JDK's reaper has already collected it once it exited
  }

  @Override
  public OutputStream getOutputStream() {
    return delegate.getOutputStream();
  }

  @Override
  public InputStream getInputStream() {
    return delegate.getInputStream();
  }

  @Override
  public InputStream getErrorStream() {
    return delegate.getErrorStream();
  }

  @Override
  public int waitFor() throws InterruptedException {
    return delegate.waitFor();
  }

  @Override
  public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
    return delegate.waitFor(timeout, unit);
  }

  @Override
  public int exitValue() {
    return delegate.exitValue();
  }

  @Override
  public void destroy() {
    delegate.destroy();
  }

  @Override
  public Process destroyForcibly() {
    delegate.destroyForcibly();
    return this;
  }

  @Override
  public boolean supportsNormalTermination() {
    return delegate.supportsNormalTermination();
  }

  @Override
  public boolean isAlive() {
    return delegate.isAlive();
  }

  @Override
  public long pid() {
    return delegate.pid();
  }

  @Override
  public CompletableFuture<Process> onExit() {
    return delegate.onExit().thenApply(p -> this);
  }

  @Override
  public ProcessHandle toHandle() {
    return delegate.toHandle();
  }

  @Override
  public String toString() {
    return "SupervisedProcess[pid=" + pid() + ", pgid=" + processGroupId() + ", jdk]";
  }
}
