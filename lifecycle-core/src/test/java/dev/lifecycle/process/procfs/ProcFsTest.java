package dev.lifecycle.process.procfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform.EnvironmentEntry;
import dev.lifecycle.process.ProcessState;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.testing.Requirement;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ProcFsTest {
  private static final long SELF = ProcessHandle.current().pid();

  @BeforeAll
  static void linuxOnly() {
    Requirement.require(ProcFs.isAvailable(), "needs Linux /proc");
  }

  private static ProcessInfo parse(String line) {
    byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
    return ProcFs.parseStat(77, bytes, bytes.length);
  }

  @Test
  void parsesFieldsAfterTheLastParenthesis() {
    // comm may hold spaces and ')': fields are counted from the last ')'.
    String line = "77 (we) ird (x)) Z 5 6 7 0 -1 4194560 1 0 0 0 250 150 0 0 20 0 1 0 987654 0 0\n";
    ProcessInfo info = parse(line);
    assertThat(info.pid()).isEqualTo(77);
    assertThat(info.command()).isEqualTo("we) ird (x)");
    assertThat(info.state()).isEqualTo(ProcessState.ZOMBIE);
    assertThat(info.ppid()).isEqualTo(5);
    assertThat(info.pgid()).isEqualTo(6);
    assertThat(info.sid()).isEqualTo(7);
    assertThat(info.cpuTime()).isEqualTo(Duration.ofMillis(4000));
    assertThat(info.startTime()).isEqualTo(987654);
    assertThat(info.residentBytes()).isEqualTo(0);
  }

  @Test
  void residentMemoryIsPagesTimesThePageSizeAndUnknownWhenTheFieldIsMissing() throws Exception {
    String line = "77 (x) S 5 6 7 0 -1 4194560 1 0 0 0 250 150 0 0 20 0 1 0 987654 1000 321 0\n";
    assertThat(parse(line).residentBytes()).isEqualTo(321 * ProcFs.PageSize.BYTES);
    assertThat(parse("77 (x) S 5 6 7 0 -1 4194560 1 0 0 0 250 150 0 0 20 0 1 0 987654\n"))
        .extracting(ProcessInfo::residentBytes)
        .isEqualTo(-1L);
    Process getconf = new ProcessBuilder("getconf", "PAGESIZE").start();
    String pageSize = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(getconf.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(ProcFs.PageSize.BYTES).isEqualTo(Long.parseLong(pageSize.trim()));
    assertThat(ProcFs.PageSize.read(Path.of("/nonexistent/auxv"))).isEqualTo(4096);
  }

  @Test
  void residentMemoryOfThisJvmMatchesItsStatus() throws Exception {
    long vmRssBytes =
        Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("VmRSS:"))
                .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
                .findFirst()
                .orElseThrow()
            * 1024;
    long resident = ProcFs.stat(SELF).orElseThrow().residentBytes();
    // Both are the same kernel counter read moments apart: a JVM's RSS moves by a few MiB at most.
    assertThat(resident)
        .isPositive()
        .isCloseTo(vmRssBytes, org.assertj.core.data.Offset.offset(64L << 20));
  }

  @Test
  void rejectsTruncatedOrForeignText() {
    assertThat(parse("77 (x) S 1 2 3")).isNull();
    assertThat(parse("not a stat line")).isNull();
    assertThat(parse("")).isNull();
  }

  @Test
  void readsThisJvm() {
    ProcessInfo self = ProcFs.stat(SELF).orElseThrow();
    assertThat(self.ppid())
        .isEqualTo(ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L));
    assertThat(self.state()).isIn(ProcessState.RUNNING, ProcessState.SLEEPING);
    assertThat(self.cpuTime()).isPositive();
    assertThat(ProcFs.identity(SELF)).contains(self.identity(ProcFs.bootId()));
    assertThat(ProcFs.bootId()).matches("[0-9a-f-]{36}");
  }

  @Test
  void absentPidIsEmptyAndInvalidPidIsRejected() {
    assertThat(ProcFs.stat(Integer.MAX_VALUE)).isEmpty();
    assertThatThrownBy(() -> ProcFs.stat(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void snapshotSeesAChildWithItsParentageAndEnvironment() throws Exception {
    String marker = UUID.randomUUID().toString();
    ProcessBuilder builder = new ProcessBuilder("sleep", "30");
    builder.environment().put("PROCFS_TEST_MARKER", marker);
    Process child = builder.start();
    try {
      ProcessTable table = ProcFs.snapshot();
      ProcessInfo row = table.get(child.pid()).orElseThrow();
      assertThat(row.ppid()).isEqualTo(SELF);
      assertThat(row.command()).isEqualTo("sleep");
      assertThat(table.children(SELF)).extracting(ProcessInfo::pid).contains(child.pid());
      assertThat(table.size()).isGreaterThan(2);
      assertThat(ProcFs.findByEnvironment("PROCFS_TEST_MARKER", marker))
          .containsExactly(child.pid());
      assertThat(ProcFs.findByEnvironment("PROCFS_TEST_MARKER", marker.substring(1))).isEmpty();
      assertThat(ProcFs.commandLine(child.pid())).contains(List.of("sleep", "30"));
      ProcessIdentity identity = ProcFs.identity(child.pid()).orElseThrow();
      assertThat(identity.isComplete()).isTrue();
    } finally {
      child.destroyForcibly();
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(ProcFs.stat(child.pid()).filter(p -> !p.hasExited())).isEmpty();
  }

  @Test
  void commandLineKeepsEmptyArguments() throws Exception {
    // sh blocks reading its stdin pipe until we close it; its last argument is empty.
    Process child = new ProcessBuilder("sh", "-c", "read line", "sh", "").start();
    try {
      assertThat(ProcFs.commandLine(child.pid()))
          .contains(List.of("sh", "-c", "read line", "sh", ""));
    } finally {
      child.destroyForcibly();
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
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
