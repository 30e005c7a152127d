package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import dev.lifecycle.process.ProcessPlatform;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link JnaSearchPathTest} and {@link JnaBootLibraryTest}: starts the platform (JNA and
 * every binding the first spawn needs), then prints JNA's search path, its boot path, the stub it
 * loaded and the largest resident size of any child this JVM has waited for ({@code
 * getrusage(RUSAGE_CHILDREN).ru_maxrss}: 0 while it started none).
 */
public final class PlatformStartMain {
  private PlatformStartMain() {}

  /**
   * Runs this class in a fresh JVM with {@code classPath} and {@code flags}, bounded to 60 s;
   * asserts it exited 0 and returns its output (stdout and stderr).
   */
  static String runOn(String classPath, String... flags) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
    command.addAll(List.of(flags));
    command.addAll(List.of("-cp", classPath, PlatformStartMain.class.getName()));
    Process jvm = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      String output = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(jvm.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
      assertThat(jvm.exitValue()).as(output).isZero();
      return output;
    } finally {
      jvm.destroyForcibly();
    }
  }

  /** {@link #runOn(String, String...)} on this JVM's class path. */
  static String run(String... flags) throws Exception {
    return runOn(System.getProperty("java.class.path"), flags);
  }

  interface C extends Library {
    int getrusage(int who, Memory usage);
  }

  public static void main(String[] args) {
    System.out.println(ProcessPlatform.get().capabilities().platform());
    System.out.println("path=" + System.getProperty(JnaSearchPath.PROPERTY));
    System.out.println("boot=" + System.getProperty(JnaBootLibrary.BOOT_PATH));
    System.out.println("jnidispatch.path=" + System.getProperty("jnidispatch.path"));
    Memory usage = new Memory(144);
    usage.clear();
    if (Native.load("c", C.class).getrusage(-1, usage) != 0) { // RUSAGE_CHILDREN
      throw new IllegalStateException("getrusage failed");
    }
    System.out.println("children_maxrss=" + usage.getLong(32)); // after two struct timevals
  }
}
