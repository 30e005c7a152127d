package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client's reads through {@link dev.lifecycle.process.ProcessPlatform#get()} load neither JNA nor
 * any class of this module, and drawing a tree cookie starts no {@link java.security.SecureRandom};
 * the first call that needs the platform loads both. A tree's life that goes well starts no logger.
 */
class LazyLoadingTest {

  @Test
  void clientReadsLoadNoNativeCode() throws Exception {
    String output = runLoggingClassLoads(ClientPathMain.class);
    int marker = output.indexOf("=== loading the platform");
    assertThat(marker).as(output).isPositive();
    // the main class itself is in this package; nothing else of it may load before the marker
    String before =
        output.substring(0, marker).replace(ClientPathMain.class.getName() + " source", "main");
    String after = output.substring(marker);
    assertThat(before)
        .contains(
            "probe self ALIVE", "probe 1 ALIVE", "clock linux-proc", "table true", "cookie 36")
        .doesNotContain("com.sun.jna.")
        .doesNotContain("dev.lifecycle.posix.")
        .doesNotContain("PlatformLoader$Resolved") // no provider lookup yet
        // cookies come from /dev/urandom: no security provider is looked up and seeded
        .doesNotContain("java.security.SecureRandom ");
    assertThat(after)
        .contains(
            "PlatformLoader$Resolved", "com.sun.jna.Native ", "dev.lifecycle.posix.PosixPlatform ");
    assertThat(after.lines()).contains("posix-linux");
  }

  /**
   * A tree's whole life in a short-lived JVM starts no logger when nothing goes wrong: binding
   * slf4j scans the class path, milliseconds of such a program (docs/PERFORMANCE.md, "Fast
   * clients"). Also in the SESSION tier, whose reports are never complete: only what was seen left
   * is logged.
   */
  @ParameterizedTest
  @ValueSource(strings = {"auto", "session"})
  void aTreesLifeStartsNoLogger(String containment) throws Exception {
    String output =
        runLoggingClassLoads(TreeLifeMain.class, "-Dlifecycle.containment=" + containment);
    assertThat(output)
        .contains("exit 0", "no survivor seen true", "dev.lifecycle.posix.PosixPlatform ")
        .doesNotContain("org.slf4j.LoggerFactory ");
  }

  /**
   * A tree's life in either tier avoids the slow first uses of a fresh JVM (docs/PERFORMANCE.md,
   * "Sixth pass" and "Seventh pass"): a record's generated {@code equals} or {@code hashCode}
   * (their first call bootstraps method handles, {@code ObjectMethods}, ~25 ms on JDK 17), the
   * JDK's process API ({@code ProcessHandleImpl} sets up its reaper), which this platform does not
   * need, and regular expressions (the first compiled pattern, a glob included, costs
   * milliseconds). Closing the tree once its leader has exited also spins no lambda class of ours
   * and starts no stream, whether the close finds the tree gone or a child still running (which
   * takes every state of the termination): each first lambda costs about a millisecond of class
   * generation, which made the SESSION tier's close of an exited tree take 12-19 ms. The JDK's own
   * lambdas are left out: which ones it links differs between versions (JDK 25's single-thread
   * executors and watch service link some).
   */
  @ParameterizedTest
  @CsvSource({"auto, exited", "session, exited", "auto, lingering", "session, lingering"})
  void aTreesLifeAvoidsTheSlowFirstUses(String containment, String leader) throws Exception {
    String output =
        runLoggingClassLoads(
            TreeLifeMain.class,
            "-Dlifecycle.containment=" + containment,
            "-Dtree.leader=" + leader);
    assertThat(output)
        .contains("exit 0", "no survivor seen true")
        .doesNotContain("java.lang.runtime.ObjectMethods ")
        .doesNotContain("java.lang.ProcessHandleImpl ")
        .doesNotContain("java.util.regex.Pattern ");
    int marker = output.indexOf(TreeLifeMain.TERMINATING);
    int end = output.indexOf("no survivor seen true", marker);
    assertThat(marker).as(output).isPositive();
    assertThat(output.substring(marker, end).lines())
        .as("classes loaded while terminating")
        .noneMatch(
            line ->
                (line.startsWith("dev.lifecycle.") && line.contains("$$Lambda"))
                    || line.startsWith("java.util.stream."));
  }

  private static String runLoggingClassLoads(Class<?> main, String... flags) throws Exception {
    List<String> all = new ArrayList<>(List.of(flags));
    all.add("-Xlog:class+load=info:stdout:none");
    return FreshJvm.run(main, all.toArray(String[]::new));
  }
}
