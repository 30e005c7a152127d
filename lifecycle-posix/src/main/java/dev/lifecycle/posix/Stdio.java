package dev.lifecycle.posix;

import com.sun.jna.Pointer;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.util.ArrayList;
import java.util.List;

/**
 * The standard streams of one spawn, planned from a {@link ProcessBuilder}'s redirects: file
 * actions that set up fds 0-2 in the child, and the parent's ends of the pipes as Java streams.
 *
 * <p>A pipe's parent end becomes a stream without JDK internals: the raw fd is reopened by path
 * ({@code /proc/self/fd/N}, {@code /dev/fd/N} on macOS), then closed. The reopen happens while we
 * still hold both ends, because opening a pipe by path waits for the other side to exist. Files are
 * opened by the child (addopen), with absolute paths so they resolve like the JDK's, against the
 * JVM's working directory.
 */
final class Stdio implements Closeable {
  private static final int FILE_MODE = 0666; // before umask, as the JDK does

  private final NativeFeatures features;
  private final List<Integer> childEnds = new ArrayList<>(3);
  private final List<Closeable> parentStreams = new ArrayList<>(3);
  private OutputStream stdin = closedOutput();
  private InputStream stdout = InputStream.nullInputStream();
  private InputStream stderr = InputStream.nullInputStream();

  private Stdio(NativeFeatures features) {
    this.features = features;
  }

  /** Plans fds 0-2 into {@code actions}; on failure everything opened so far is closed. */
  static Stdio plan(ProcessBuilder builder, Pointer actions, NativeFeatures features)
      throws IOException {
    Stdio stdio = new Stdio(features);
    try {
      if (stdio.redirect(0, builder.redirectInput(), actions) instanceof OutputStream in) {
        stdio.stdin = in;
      }
      if (stdio.redirect(1, builder.redirectOutput(), actions) instanceof InputStream out) {
        stdio.stdout = out;
      }
      if (builder.redirectErrorStream()) {
        check(LibC.posix_spawn_file_actions_adddup2(actions, 1, 2), "dup2 1 2");
      } else if (stdio.redirect(2, builder.redirectError(), actions) instanceof InputStream err) {
        stdio.stderr = err;
      }
      return stdio;
    } catch (IOException | RuntimeException e) {
      stdio.close();
      throw e;
    }
  }

  OutputStream stdin() {
    return stdin;
  }

  InputStream stdout() {
    return stdout;
  }

  InputStream stderr() {
    return stderr;
  }

  /** After a successful spawn: the child has its copies, ours must go. */
  void closeChildEnds() {
    for (int fd : childEnds) {
      LibC.close(fd);
    }
    childEnds.clear();
  }

  /** After a failed spawn: closes the child ends and the parent's streams. */
  @Override
  public void close() {
    closeChildEnds();
    for (Closeable stream : parentStreams) {
      try {
        stream.close();
      } catch (IOException ignored) {
        // nothing was ever read or written through it
      }
    }
  }

  /** Adds the file actions for one fd; returns the parent's stream for a pipe, else null. */
  private Closeable redirect(int fd, Redirect redirect, Pointer actions) throws IOException {
    switch (redirect.type()) {
      case PIPE -> {
        return pipe(fd, actions);
      }
      case INHERIT -> {
        if (features.addinherit()) { // macOS: CLOEXEC_DEFAULT would close it otherwise
          check(
              OptionalLibC.Inherit.posix_spawn_file_actions_addinherit_np(actions, fd),
              "inherit fd " + fd);
        }
      }
      case READ -> open(fd, redirect.file(), OsConstants.O_RDONLY, actions);
      case WRITE ->
          open(
              fd,
              redirect.file(),
              OsConstants.O_WRONLY | features.os().openCreate | features.os().openTruncate,
              actions);
      case APPEND ->
          open(
              fd,
              redirect.file(),
              OsConstants.O_WRONLY | features.os().openCreate | features.os().openAppend,
              actions);
    }
    return null;
  }

  private Closeable pipe(int fd, Pointer actions) throws IOException {
    int[] ends = new int[2];
    int rc = features.os().isLinux() ? LinuxC.pipe2(ends, LinuxC.O_CLOEXEC) : LibC.pipe(ends);
    if (rc != 0) {
      throw new IOException("pipe for fd " + fd + ": " + LibC.describe(LibC.errno()));
    }
    boolean childReads = fd == 0;
    int parentEnd = childReads ? ends[1] : ends[0];
    int childEnd = childReads ? ends[0] : ends[1];
    childEnds.add(childEnd);
    File path = new File((features.os().isLinux() ? "/proc/self/fd/" : "/dev/fd/") + parentEnd);
    Closeable stream;
    try {
      stream =
          childReads
              ? new ExitAwareStreams.Output(new BufferedOutputStream(new FileOutputStream(path)))
              : new ExitAwareStreams.Input(new BufferedInputStream(new FileInputStream(path)));
    } finally {
      LibC.close(parentEnd);
    }
    parentStreams.add(stream);
    check(LibC.posix_spawn_file_actions_adddup2(actions, childEnd, fd), "dup2 pipe to fd " + fd);
    return stream;
  }

  private static void open(int fd, File file, int flags, Pointer actions) throws IOException {
    String path = file.getAbsolutePath();
    check(
        LibC.posix_spawn_file_actions_addopen(actions, fd, LibC.cString(path), flags, FILE_MODE),
        "open " + path + " as fd " + fd);
  }

  static void check(int rc, String what) throws IOException {
    if (rc != 0) {
      throw new IOException("posix_spawn file action (" + what + "): " + LibC.describe(rc));
    }
  }

  /** Like the JDK's stream for a redirected stdin: writing fails with "Stream closed". */
  private static OutputStream closedOutput() {
    OutputStream out = OutputStream.nullOutputStream();
    try {
      out.close();
    } catch (IOException impossible) {
      throw new AssertionError(impossible);
    }
    return out;
  }
}
