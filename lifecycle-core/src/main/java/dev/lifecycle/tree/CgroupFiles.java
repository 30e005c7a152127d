package dev.lifecycle.tree;

import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.PidList;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The files the sampler reads from a tree's cgroup at every sample ({@code cgroup.procs}, {@code
 * cgroup.stat}, {@code cpu.stat}), each opened once and re-read from offset 0: in the cgroup file
 * system the path lookup of an open costs more than the read. A read that fails (the cgroup being
 * removed, the descriptor limit) returns "unknown" and the caller reads by path instead. Confined
 * to the sampler thread, which also closes it.
 */
final class CgroupFiles implements AutoCloseable {
  private static final String[] NAMES = {"cgroup.procs", "cgroup.stat", "cpu.stat"};
  static final int PROCS = 0;
  static final int STAT = 1;
  static final int CPU = 2;

  private final Cgroup cgroup;
  private final FileChannel[] open = new FileChannel[NAMES.length];
  private ByteBuffer buffer = ByteBuffer.allocate(1024);
  private boolean closed;

  CgroupFiles(Cgroup cgroup) {
    this.cgroup = cgroup;
  }

  /**
   * The pids in the cgroup's own {@code cgroup.procs}.
   *
   * @return the pids, or {@code null} when unknown
   */
  List<Long> processes() {
    int n = read(PROCS);
    if (n < 0) {
      return null;
    }
    List<Long> out = new ArrayList<>();
    PidList.parse(buffer.array(), n, out);
    return out;
  }

  /**
   * A counter of a flat-keyed file, e.g. {@code nr_descendants} of {@link #STAT}.
   *
   * @return the value, or {@code -1} when unknown
   */
  long counter(int file, String key) {
    int n = read(file);
    if (n < 0) {
      return -1;
    }
    byte[] text = buffer.array();
    int line = 0;
    while (line < n) {
      int end = line;
      while (end < n && text[end] != '\n') {
        end++;
      }
      if (end - line > key.length()
          && text[line + key.length()] == ' '
          && startsWith(text, line, key)) {
        long value = 0;
        int i = line + key.length() + 1;
        if (i >= end) {
          return -1;
        }
        for (; i < end; i++) {
          byte b = text[i];
          if (b < '0' || b > '9') {
            return -1;
          }
          value = value * 10 + (b - '0');
        }
        return value;
      }
      line = end + 1;
    }
    return -1;
  }

  private static boolean startsWith(byte[] text, int at, String key) {
    for (int i = 0; i < key.length(); i++) {
      if (text[at + i] != key.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** Reads a whole file into {@link #buffer}; @return its length, or -1 when unknown */
  private int read(int file) {
    if (closed) {
      return -1;
    }
    try {
      FileChannel channel = open[file];
      if (channel == null) {
        channel = FileChannel.open(cgroup.path().resolve(NAMES[file]), StandardOpenOption.READ);
        open[file] = channel;
      }
      while (true) {
        buffer.clear();
        long position = 0;
        int n;
        while (buffer.hasRemaining() && (n = channel.read(buffer, position)) > 0) {
          position += n;
        }
        if (!buffer.hasRemaining()) {
          buffer = ByteBuffer.allocate(buffer.capacity() * 2); // a large tree: read it again whole
          continue;
        }
        return buffer.position();
      }
    } catch (IOException | RuntimeException e) {
      closeQuietly(file);
      return -1;
    }
  }

  private void closeQuietly(int file) {
    FileChannel channel = open[file];
    open[file] = null;
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // nothing was written: nothing to lose
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    for (int i = 0; i < open.length; i++) {
      closeQuietly(i);
    }
  }
}
