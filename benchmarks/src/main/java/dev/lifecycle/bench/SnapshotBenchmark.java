package dev.lifecycle.bench;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.procfs.ProcFs;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * A full process-table read with a tree of {@code treeSize} extra processes running (so the table
 * holds about that many plus the machine's own): {@link ProcFs#snapshot()} (pid, ppid, pgid, sid,
 * start time, state, CPU, command of every process) vs {@code ProcessHandle.allProcesses()}, alone
 * (pid, parent and start time) and with {@code info()} per process. The table size is printed at
 * setup; divide by it for the per-process figure.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class SnapshotBenchmark extends AverageTimeBenchmark {
  @Param("1000")
  public int treeSize;

  private ProcessPlatform posix;
  private SupervisedProcess tree;

  @Setup
  public void setup() throws Exception {
    posix = ProcessPlatform.get();
    tree = posix.spawn(Trees.builder(treeSize, false));
    Trees.awaitSize(tree.pid(), treeSize, Duration.ofSeconds(60));
    System.out.println(
        "\n[table] "
            + ProcFs.snapshot().size()
            + " processes in /proc, "
            + ProcessHandle.allProcesses().count()
            + " seen by ProcessHandle.allProcesses()");
  }

  @TearDown
  public void tearDown() throws Exception {
    Trees.killAndVerify(posix, tree.pid());
    tree.waitFor();
  }

  @Benchmark
  public ProcessTable lifecycleSnapshot() {
    return posix.snapshot();
  }

  @Benchmark
  public List<Long> lifecyclePidsOnly() {
    return ProcFs.pids();
  }

  @Benchmark
  public long jdkAllProcesses() {
    return ProcessHandle.allProcesses().count();
  }

  @Benchmark
  public void jdkAllProcessesInfo(Blackhole bh) {
    ProcessHandle.allProcesses()
        .forEach(
            h -> {
              ProcessHandle.Info info = h.info();
              bh.consume(info.command());
              bh.consume(info.startInstant());
              bh.consume(info.totalCpuDuration());
              bh.consume(h.parent());
            });
  }
}
