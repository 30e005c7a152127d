package dev.lifecycle.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcessTableTest {
  private static ProcessInfo row(long pid, long ppid, long pgid, long sid, char state) {
    return new ProcessInfo(
        pid, ppid, pgid, sid, pid * 10, ProcessState.fromCode(state), Duration.ZERO, "p" + pid, -1);
  }

  // 1 init; 100 session leader; 101, 102 its children; 103 child of 101 in the same group;
  // 200 escaped with setsid (sid 200) but still a child of 102; 300 re-parented to init.
  private final ProcessTable table =
      ProcessTable.of(
          List.of(
              row(1, 0, 1, 1, 'S'),
              row(100, 1, 100, 100, 'S'),
              row(101, 100, 100, 100, 'R'),
              row(102, 100, 100, 100, 'Z'),
              row(103, 101, 100, 100, 'S'),
              row(200, 102, 200, 200, 'S'),
              row(300, 1, 100, 100, 'T')),
          "boot",
          42);

  @Test
  void indexesByPidAndIdentity() {
    assertThat(table.size()).isEqualTo(7);
    assertThat(table.get(103)).map(ProcessInfo::ppid).contains(101L);
    assertThat(table.get(999)).isEmpty();
    assertThat(table.identity(101)).contains(new ProcessIdentity(101, 1010, "boot"));
    assertThat(table.bootId()).isEqualTo("boot");
    assertThat(table.takenAtNanos()).isEqualTo(42);
  }

  @Test
  void walksChildrenAndDescendants() {
    assertThat(table.children(100)).extracting(ProcessInfo::pid).containsExactly(101L, 102L);
    assertThat(table.descendants(100))
        .extracting(ProcessInfo::pid)
        .containsExactlyInAnyOrder(101L, 102L, 103L, 200L);
  }

  @Test
  void groupAndSessionIncludeReparentedMembers() {
    assertThat(table.group(100))
        .extracting(ProcessInfo::pid)
        .containsExactlyInAnyOrder(100L, 101L, 102L, 103L, 300L);
    assertThat(table.session(200)).extracting(ProcessInfo::pid).containsExactly(200L);
  }

  @Test
  void zombiesHaveExited() {
    assertThat(table.get(102)).map(ProcessInfo::hasExited).contains(true);
    assertThat(table.get(300)).map(ProcessInfo::hasExited).contains(false);
  }
}
