package dev.lifecycle.process.procfs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ProcessPlatform.EnvironmentEntry;
import dev.lifecycle.testing.Requirement;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The execve window of {@link ProcEnviron}, staged through its read seam on this JVM's stat. */
class ProcEnvironTest {

  @BeforeAll
  static void linuxOnly() {
    Requirement.require(ProcFs.isAvailable(), "needs Linux /proc");
  }

  @Test
  void anEmptyEnvironmentIsOnlyCalledEmptyOnARereadAfterEnvEndWasSeenSet() throws Exception {
    // This JVM's own stat line, with field 51 (env_end) as the kernel reports it and as it reads
    // between an execve's point of no return and the layout of the new environment.
    String stat = Files.readString(Path.of("/proc/self/stat")).trim();
    String[] afterComm = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    Requirement.require(afterComm.length >= 49, "a kernel that reports env_end");
    afterComm[48] = "0"; // field 51 = index 48 after pid and comm
    String insideExec = stat.substring(0, stat.lastIndexOf(')') + 2) + String.join(" ", afterComm);
    byte[] laidOut = "HOME=/root\0LIFECYCLE_TREE=abc\0".getBytes(StandardCharsets.UTF_8);

    // The execve finished between the empty read and the stat read: the reread decides.
    assertThat(entry(stat, new byte[0], laidOut)).isEqualTo(EnvironmentEntry.PRESENT);
    assertThat(entry(insideExec, new byte[0], laidOut)).isEqualTo(EnvironmentEntry.INSIDE_EXEC);
    assertThat(entry(stat, new byte[0], new byte[0])).isEqualTo(EnvironmentEntry.EMPTY);
    assertThat(entry(stat, laidOut)).isEqualTo(EnvironmentEntry.PRESENT);
  }

  /** Classifies pid 42 with {@code environs} as the successive environ reads and a fixed stat. */
  private static EnvironmentEntry entry(String stat, byte[]... environs) {
    Deque<byte[]> reads = new ArrayDeque<>(List.of(environs));
    return ProcEnviron.entry(
        42,
        "LIFECYCLE_TREE",
        "abc",
        path ->
            path.getFileName().toString().equals("stat")
                ? stat.getBytes(StandardCharsets.UTF_8)
                : reads.remove());
  }

  @Test
  void aSearchWaitsForAProcessInsideExecveToLayOutItsEnvironment() throws Exception {
    String stat = Files.readString(Path.of("/proc/self/stat")).trim();
    String insideExec = withField(stat, 51, "0");
    String kernelThread = withField(insideExec, 9, Long.toString(0x00200000L | 0x40L));
    byte[] laidOut = "HOME=/root\0LIFECYCLE_TREE=abc\0".getBytes(StandardCharsets.UTF_8);
    byte[] empty = new byte[0];

    // Inside execve, then laid out: found on the reread.
    assertThat(search(List.of(insideExec, stat), empty, empty, laidOut)).isTrue();
    // Inside execve, and laid out by the next read: found.
    assertThat(search(List.of(insideExec), empty, laidOut)).isTrue();
    // The empty read came just before env_end was set: the reread after it decides.
    assertThat(search(List.of(stat), empty, laidOut)).isTrue();
    // Empty for good (env -i), or a kernel thread: not found, and no waiting.
    assertThat(search(List.of(stat), empty, empty)).isFalse();
    assertThat(search(List.of(kernelThread), empty)).isFalse();
  }

  /** This JVM's stat text with field {@code n} (proc(5) numbering) replaced. */
  private static String withField(String stat, int n, String value) {
    int close = stat.lastIndexOf(')');
    String[] fields = stat.substring(close + 2).split(" ");
    Requirement.require(fields.length >= 49, "a kernel that reports env_end");
    fields[n - 3] = value;
    return stat.substring(0, close + 2) + String.join(" ", fields);
  }

  /** Whether pid 42 is found, with these successive stat texts and environ reads (all used). */
  private static boolean search(List<String> stats, byte[]... environs) {
    Deque<String> statReads = new ArrayDeque<>(stats);
    Deque<byte[]> environReads = new ArrayDeque<>(List.of(environs));
    boolean found =
        !ProcEnviron.find(
                "LIFECYCLE_TREE",
                "abc",
                List.of(42L),
                path ->
                    path.getFileName().toString().equals("stat")
                        ? statReads.remove().getBytes(StandardCharsets.UTF_8)
                        : environReads.remove())
            .isEmpty();
    assertThat(statReads).as("stat reads left").isEmpty();
    assertThat(environReads).as("environ reads left").isEmpty();
    return found;
  }
}
