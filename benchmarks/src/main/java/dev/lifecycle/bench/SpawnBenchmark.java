package dev.lifecycle.bench;

import com.zaxxer.nuprocess.NuAbstractProcessHandler;
import com.zaxxer.nuprocess.NuProcess;
import com.zaxxer.nuprocess.NuProcessBuilder;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.commons.exec.CommandLine;
import org.apache.commons.exec.DefaultExecutor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;
import org.zeroturnaround.exec.ProcessExecutor;

/**
 * Spawn and wait for {@code /bin/true}, one child at a time: the JNA platform (new session, and
 * without one), plain {@link ProcessBuilder#start()}, the pure-JDK fallback (ProcessBuilder around
 * util-linux setsid), and the peers zt-exec, Commons Exec and NuProcess, each used the way its
 * documentation shows. Every variant creates a fresh builder per call, as callers do.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class SpawnBenchmark extends AverageTimeBenchmark {
  static final String TRUE = "/bin/true";

  private ProcessPlatform posix;
  private ProcessPlatform jdk;

  @Setup
  public void setup() {
    posix = ProcessPlatform.get();
    jdk = ProcessPlatform.jdk();
    if (!posix.capabilities().platform().startsWith("posix")) {
      throw new IllegalStateException("lifecycle-posix not in use: " + posix.capabilities());
    }
  }

  static int finish(Process process) throws InterruptedException, IOException {
    int status = process.waitFor();
    process.getOutputStream().close();
    process.getInputStream().close();
    process.getErrorStream().close();
    if (status != 0) {
      throw new IllegalStateException("exit " + status);
    }
    return status;
  }

  @Benchmark
  public int lifecycleNewSession() throws Exception {
    return finish(posix.spawn(new ProcessBuilder(TRUE), SpawnOptions.defaults()));
  }

  @Benchmark
  public int lifecycleSameGroup() throws Exception {
    return finish(
        posix.spawn(new ProcessBuilder(TRUE), SpawnOptions.defaults().withNewSession(false)));
  }

  @Benchmark
  public int processBuilder() throws Exception {
    return finish(new ProcessBuilder(TRUE).start());
  }

  @Benchmark
  public int jdkFallbackSetsid() throws Exception {
    return finish(jdk.spawn(new ProcessBuilder(TRUE), SpawnOptions.defaults()));
  }

  @Benchmark
  public int ztExec() throws Exception {
    return new ProcessExecutor().command(TRUE).execute().getExitValue();
  }

  @Benchmark
  public int commonsExec() throws Exception {
    return DefaultExecutor.builder().get().execute(new CommandLine(TRUE));
  }

  @Benchmark
  public int nuProcess() throws Exception {
    NuProcessBuilder builder = new NuProcessBuilder(List.of(TRUE));
    builder.setProcessListener(new NuAbstractProcessHandler() {});
    NuProcess process = builder.start();
    int status = process.waitFor(0, TimeUnit.SECONDS);
    if (status != 0) {
      throw new IllegalStateException("exit " + status);
    }
    return status;
  }
}
