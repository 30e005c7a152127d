package dev.lifecycle.process.procfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessState;
import dev.lifecycle.process.ProcessTable;
import dev.lifecycle.testing.Requirement;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
}
