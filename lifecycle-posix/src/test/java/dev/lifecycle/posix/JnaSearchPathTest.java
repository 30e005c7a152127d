package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Starting the platform starts no process (JNA's {@code ldconfig -p} is replaced by reading {@code
 * /etc/ld.so.conf}), and a search path the user set is kept.
 */
class JnaSearchPathTest {

  @Test
  void startingThePlatformStartsNoProcess() throws Exception {
    String output = FreshJvm.run(PlatformStartMain.class);
    assertThat(output.lines()).as(output).contains("posix-linux");
    // JNA's ldconfig is a child the JVM waits for: it would show in RUSAGE_CHILDREN
    assertThat(output.lines()).contains("children_maxrss=0");
    String path = output.lines().filter(l -> l.startsWith("path=")).findFirst().orElseThrow();
    assertThat(path.substring(5).split(":")).contains("/usr/lib").doesNotContain("");
  }

  @Test
  void aSearchPathTheUserSetIsKept() throws Exception {
    String output =
        FreshJvm.run(PlatformStartMain.class, "-D" + JnaSearchPath.PROPERTY + "=/nonexistent/lib");
    assertThat(output.lines()).as(output).contains("posix-linux", "path=/nonexistent/lib");
  }

  @Test
  void readsTheLoaderConfigurationWithItsIncludes(@TempDir Path dir) throws Exception {
    Path libs = Files.createDirectories(dir.resolve("libs"));
    Path more = Files.createDirectories(dir.resolve("more"));
    Path confd = Files.createDirectories(dir.resolve("conf.d"));
    Files.writeString(confd.resolve("b.conf"), more + "\n");
    Files.writeString(
        confd.resolve("a.conf"), "# comment\n" + libs + " # trailing\n/nonexistent\n");
    Files.writeString(confd.resolve("ignored.txt"), dir + "\n");
    Path config = dir.resolve("ld.so.conf");
    Files.writeString(config, "include conf.d/*.conf\n\n" + libs + "\n");
    assertThat(JnaSearchPath.directories(config))
        .startsWith(libs.toString(), more.toString()) // include order, no duplicates
        .doesNotContain("/nonexistent", dir.toString())
        .contains("/usr/lib")
        .doesNotHaveDuplicates();
  }

  @Test
  void includeGlobsMatchLikeGlob3() {
    assertThat(JnaSearchPath.matches("*.conf", "libc.conf")).isTrue();
    assertThat(JnaSearchPath.matches("*.conf", "libc.conf.dpkg-old")).isFalse();
    assertThat(JnaSearchPath.matches("*.conf", ".hidden.conf")).as("leading dot").isFalse();
    assertThat(JnaSearchPath.matches(".*.conf", ".hidden.conf")).isTrue();
    assertThat(JnaSearchPath.matches("?.conf", "a.conf")).isTrue();
    assertThat(JnaSearchPath.matches("?.conf", "ab.conf")).isFalse();
    assertThat(JnaSearchPath.matches("a*b*c", "aXbYbZc")).isTrue();
    assertThat(JnaSearchPath.matches("a*b", "ab")).isTrue();
    assertThat(JnaSearchPath.matches("a*b", "abc")).isFalse();
    assertThat(JnaSearchPath.matches("x86_64-linux-gnu.conf", "x86_64-linux-gnu.conf")).isTrue();
  }

  /** Without a leading dot, {@code *} and {@code ?} mean what the JDK's glob means by them. */
  @Test
  void includeGlobsAgreeWithTheJdksGlob() {
    java.util.Random random = new java.util.Random(13);
    String alphabet = "ab.*?";
    for (int i = 0; i < 20_000; i++) {
      String glob = randomText(random, alphabet, 6);
      String name = randomText(random, "ab.", 7);
      if (name.isEmpty() || name.startsWith(".")) {
        continue;
      }
      boolean jdk =
          java.nio.file.FileSystems.getDefault()
              .getPathMatcher("glob:" + glob)
              .matches(Path.of(name));
      assertThat(JnaSearchPath.matches(glob, name)).as("%s against %s", glob, name).isEqualTo(jdk);
    }
  }

  private static String randomText(java.util.Random random, String alphabet, int maxLength) {
    StringBuilder text = new StringBuilder();
    for (int i = random.nextInt(maxLength + 1); i > 0; i--) {
      text.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return text.toString();
  }
}
