package dev.lifecycle.posix;

import dev.lifecycle.internal.Threads;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The parent ends of a child's pipes, released when the child exits, as the JDK does: what the
 * child wrote and nobody read yet is kept in memory, and the pipe's file descriptor is closed, so a
 * caller that never touches the streams leaks no descriptor. Release runs on its own daemon thread
 * (never the exit watcher's) and skips a stream a reader is using at that moment: that reader sees
 * the end of the pipe itself.
 */
final class ExitAwareStreams {
  private static final ExecutorService RELEASER =
      Executors.newSingleThreadExecutor(Threads.daemons("lifecycle-stream-release"));

  private ExitAwareStreams() {}

  /** Releases the given streams (those of ours; others untouched) after the child exited. */
  static void releaseAfterExit(Object... streams) {
    RELEASER.execute(new Release(streams));
  }

  /** A class, not a lambda: it first runs as a short-lived program's child exits (no linkage). */
  private static final class Release implements Runnable {
    private final Object[] streams;

    Release(Object[] streams) {
      this.streams = streams;
    }

    @Override
    public void run() {
      for (Object stream : streams) {
        if (stream instanceof Input in) {
          in.processExited();
        } else if (stream instanceof Output out) {
          out.processExited();
        }
      }
    }
  }

  /** An I/O call made under a stream's lock. */
  private interface IoCall<T> {
    T call() throws IOException;
  }

  /** An I/O step made under a stream's lock that returns nothing. */
  private interface IoStep {
    void run() throws IOException;
  }

  private static <T> T locked(ReentrantLock lock, IoCall<T> call) throws IOException {
    lock.lock();
    try {
      return call.call();
    } finally {
      lock.unlock();
    }
  }

  private static void locked(ReentrantLock lock, IoStep step) throws IOException {
    lock.lock();
    try {
      step.run();
    } finally {
      lock.unlock();
    }
  }

  /** A pipe the parent reads (the child's stdout or stderr). */
  static final class Input extends InputStream {
    private final ReentrantLock lock = new ReentrantLock();
    private InputStream in; // guarded by lock: the pipe, then what was left in it

    Input(InputStream pipe) {
      this.in = pipe;
    }

    void processExited() {
      if (!lock.tryLock()) {
        return; // a reader is inside: it reaches the end of the pipe on its own
      }
      try {
        InputStream pipe = in;
        byte[] rest = pipe.readNBytes(pipe.available()); // only what is there: never blocks
        pipe.close();
        in = new ByteArrayInputStream(rest);
      } catch (IOException closedOrFailed) {
        // closed by the caller already, or unreadable: nothing to keep
      } finally {
        lock.unlock();
      }
    }

    @Override
    public int read() throws IOException {
      return locked(lock, () -> in.read());
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return locked(lock, () -> in.read(b, off, len));
    }

    @Override
    public int available() throws IOException {
      return locked(lock, () -> in.available());
    }

    @Override
    public void close() throws IOException {
      locked(lock, () -> in.close());
    }
  }

  /** A pipe the parent writes (the child's stdin). */
  static final class Output extends OutputStream {
    private final ReentrantLock lock = new ReentrantLock();
    private OutputStream out; // guarded by lock: the pipe, then a closed stream

    Output(OutputStream pipe) {
      this.out = pipe;
    }

    void processExited() {
      if (!lock.tryLock()) {
        return; // a writer is inside: it gets EPIPE from the pipe on its own
      }
      try {
        out.close();
      } catch (IOException brokenPipe) {
        // unflushed bytes had no reader any more
      } finally {
        out = closed();
        lock.unlock();
      }
    }

    private static OutputStream closed() {
      OutputStream closed = OutputStream.nullOutputStream();
      try {
        closed.close(); // writes now fail with "Stream closed", as the JDK's do
      } catch (IOException impossible) {
        throw new AssertionError(impossible);
      }
      return closed;
    }

    @Override
    public void write(int b) throws IOException {
      locked(lock, () -> out.write(b));
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      locked(lock, () -> out.write(b, off, len));
    }

    @Override
    public void flush() throws IOException {
      locked(lock, () -> out.flush());
    }

    @Override
    public void close() throws IOException {
      locked(lock, () -> out.close());
    }
  }
}
