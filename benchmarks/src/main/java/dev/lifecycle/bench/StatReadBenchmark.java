package dev.lifecycle.bench;

import com.sun.jna.Memory;
import dev.lifecycle.process.procfs.ProcFs;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * Scratch experiment for the library owners: the cost of reading one {@code /proc/<pid>/stat} (this
 * JVM's) by the ways open to {@code ProcFs} (pure JDK) and to lifecycle-posix (JNA). {@code
 * procFsStat} is the library's path (NIO FileChannel.open per read, fresh 1 KiB buffer, full
 * parse); the rest only read.
 */
public class StatReadBenchmark extends AverageTimeBenchmark {
  private final long pid = ProcessHandle.current().pid();
  private final String pathText = "/proc/" + pid + "/stat";
  private final byte[] cPath = (pathText + "\0").getBytes(StandardCharsets.US_ASCII);
  private final byte[] array = new byte[1024];
  private final ByteBuffer buffer = ByteBuffer.allocate(1024);
  private final Memory memory = new Memory(1024);

  @Benchmark
  public Optional<?> procFsStat() {
    return ProcFs.stat(pid);
  }

  @Benchmark
  public int nioChannelReusedBuffer() throws IOException {
    try (FileChannel channel = FileChannel.open(Path.of(pathText), StandardOpenOption.READ)) {
      buffer.clear();
      return channel.read(buffer);
    }
  }

  @Benchmark
  public int fileInputStreamReusedArray() throws IOException {
    try (FileInputStream in = new FileInputStream(pathText)) {
      return in.read(array);
    }
  }

  @Benchmark
  public int randomAccessFileReusedArray() throws IOException {
    try (RandomAccessFile in = new RandomAccessFile(pathText, "r")) {
      return in.read(array);
    }
  }

  @Benchmark
  public long jnaOpenReadClose() {
    int fd = ProbeAlternativesBenchmark.C.open(cPath, 0);
    long n = ProbeAlternativesBenchmark.C.read(fd, memory, 1024);
    ProbeAlternativesBenchmark.C.close(fd);
    return n;
  }
}
