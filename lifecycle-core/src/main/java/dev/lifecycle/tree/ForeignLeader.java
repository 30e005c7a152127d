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
  private final ProcessIdentity identity;
  private final String cookie;

  ForeignLeader(ProcessIdentity identity, String cookie) {
    this.identity = identity;
    this.cookie = cookie;
  }

  @Override
  public ProcessIdentity identity() {
    return identity;
  }

  @Override
  public long pid() {
    return identity.pid();
  }

  @Override
  public long processGroupId() {
    return -1;
  }

  @Override
  public boolean isSessionLeader() {
    return false;
  }

  @Override
  public String treeCookie() {
    return cookie;
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
    throw new UnsupportedOperationException("not a child of this JVM: " + identity);
  }

  @Override
  public int exitValue() {
    throw new IllegalThreadStateException("not a child of this JVM: " + identity);
  }

  @Override
  public void destroy() {
    throw new UnsupportedOperationException("not a child of this JVM: " + identity);
  }
}
