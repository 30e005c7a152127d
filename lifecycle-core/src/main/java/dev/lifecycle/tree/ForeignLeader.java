package dev.lifecycle.tree;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.SupervisedProcess;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The leader of a tree this JVM did not spawn (one left behind by an owner that is gone): no
 * streams, no exit status, nothing to reap, and no group of ours to signal, so a termination
 * signals every member by identity. Immutable and thread-safe.
 */
final class ForeignLeader extends SupervisedProcess {
  ForeignLeader(ProcessIdentity identity, String cookie) {
    super(identity, -1, cookie);
  }

  @Override
  public long pid() {
    return identity().pid();
  }

  @Override
  public boolean reap() {
    return false;
  }

  @Override
  public OutputStream getOutputStream() {
    return OutputStream.nullOutputStream();
  }

  @Override
  public InputStream getInputStream() {
    return InputStream.nullInputStream();
  }

  @Override
  public InputStream getErrorStream() {
    return InputStream.nullInputStream();
  }

  @Override
  public int waitFor() {
    throw new UnsupportedOperationException("not a child of this JVM: " + identity());
  }

  @Override
  public int exitValue() {
    throw new IllegalThreadStateException("not a child of this JVM: " + identity());
  }

  @Override
  public void destroy() {
    throw new UnsupportedOperationException("not a child of this JVM: " + identity());
  }
}
