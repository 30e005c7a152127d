package dev.lifecycle.bench;

import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SupervisedProcess;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One liveness probe of a live child ({@code sleep 600}, spawned by the JNA platform in a session
 * of its own and killed by group at the end): by pid, by recorded identity, and the JDK's {@code
 * ProcessHandle.of(pid).isAlive()} and a held handle's {@code isAlive()}; {@code
 * lifecycleProbeForeignPid} probes a {@code ProcessBuilder} child (not one of the platform's own).
 */
public class ProbeBenchmark extends AverageTimeBenchmark {
  private ProcessPlatform posix;
  private SupervisedProcess child;
  private long pid;
  private ProcessIdentity identity;
  private ProcessHandle handle;
  private Process foreign; // a JDK child: not in the platform's children, the generic path
  private long foreignPid;

  @Setup
  public void setup() throws Exception {
    posix = ProcessPlatform.get();
    ProcessBuilder builder = Trees.quietSleep();
    child = posix.spawn(builder);
    pid = child.pid();
    identity = child.identity();
    handle = ProcessHandle.of(pid).orElseThrow();
    foreign = builder.start();
    foreignPid = foreign.pid();
  }

  @TearDown
  public void tearDown() throws Exception {
    Trees.killAndVerify(posix, child.processGroupId());
    child.waitFor();
    foreign.destroyForcibly().waitFor();
  }

  @Benchmark
  public Liveness lifecycleProbePid() {
    return posix.probe(pid);
  }

  @Benchmark
  public Liveness lifecycleProbeForeignPid() {
    return posix.probe(foreignPid);
  }

  @Benchmark
  public Liveness lifecycleProbeIdentity() {
    return posix.probe(identity);
  }

  @Benchmark
  public boolean lifecycleProcessIsAlive() {
    return child.isAlive();
  }

  @Benchmark
  public boolean jdkHandleOfIsAlive() {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Benchmark
  public boolean jdkHeldHandleIsAlive() {
    return handle.isAlive();
  }
}
