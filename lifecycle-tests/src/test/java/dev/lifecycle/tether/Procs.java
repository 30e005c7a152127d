package dev.lifecycle.tether;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcFs;
import dev.lifecycle.testing.Await;
import dev.lifecycle.testing.Background;
import dev.lifecycle.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Real-process helpers for the tether and worker tests: child JVMs, identities, bounded polling
 * (never a fixed sleep), "gone" that counts zombies as gone (PID 1 here reaps late), and a kill
 * list so every process a test starts is killed by the test.
 */
public final class Procs implements AutoCloseable {
  private final List<ProcessIdentity> started = new ArrayList<>();

  /**
   * Starts {@code main} in a child JVM with this test classpath; stdout piped, stderr inherited.
   */
  public Process javaMain(Class<?> main, Map<String, String> env, String... args)
      throws IOException {
    List<String> command =
        ChildJvm.command(main, List.of("-XX:TieredStopAtLevel=1"), List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(Redirect.INHERIT);
    builder.environment().putAll(env);
    Process process = builder.start();
    track(process.pid());
    return process;
  }

  /** Remembers {@code pid} (by identity) for {@link #close()}; returns the identity. */
  public synchronized ProcessIdentity track(long pid) {
    ProcessIdentity identity =
        ProcFs.identity(pid).orElseThrow(() -> new AssertionError("no process " + pid));
    started.add(identity);
    return identity;
  }

  /** Kills everything tracked, by identity (a reused pid is left alone). */
  @Override
  public synchronized void close() {
    kill(started);
    started.clear();
  }

  /** SIGKILLs each of {@code identities} (a reused pid is left alone); a failure is printed. */
  public static void kill(Collection<ProcessIdentity> identities) {
    ProcessPlatform platform = ProcessPlatform.get();
    for (ProcessIdentity identity : identities) {
      try {
        platform.signal(identity, Signal.KILL);
      } catch (RuntimeException e) {
        System.err.println("cleanup of " + identity + " failed: " + e);
      }
    }
  }

  /** Gone: no such process, a zombie, or the pid now names another process. */
  public static boolean isGone(ProcessIdentity identity) {
    return Await.isGone(identity);
  }

  public static void awaitAllGone(Duration timeout, Collection<ProcessIdentity> identities) {
    Await.allGone(timeout, identities);
  }

  public static void await(Duration timeout, String what, BooleanSupplier condition) {
    Await.until(timeout, what, condition);
  }

  /** Reads one line within {@code timeout} (a daemon reader thread: never blocks the test). */
  public static String readLine(BufferedReader in, Duration timeout) throws Exception {
    return Background.call("line reader", in::readLine)
        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public static BufferedReader stdout(Process process) {
    return new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }
}
