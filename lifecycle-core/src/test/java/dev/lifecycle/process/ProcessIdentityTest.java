package dev.lifecycle.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.ProcessIdentity.Match;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProcessIdentityTest {
  private static final ProcessIdentity RECORDED = new ProcessIdentity(4242, 1000, "boot-a");

  /** Value equality over all three parts, as a record's would be (the methods are written out). */
  @Test
  void equalExactlyWhenEveryPartIsEqual() {
    ProcessIdentity same = new ProcessIdentity(4242, 1000, "boot-a");
    assertThat(same).isEqualTo(RECORDED).hasSameHashCodeAs(RECORDED);
    assertThat(RECORDED)
        .isNotEqualTo(new ProcessIdentity(4243, 1000, "boot-a"))
        .isNotEqualTo(new ProcessIdentity(4242, 1001, "boot-a"))
        .isNotEqualTo(new ProcessIdentity(4242, 1000, "boot-b"))
        .isNotEqualTo(ProcessIdentity.ofPid(4242))
        .isNotEqualTo(null)
        .isNotEqualTo("4242");
  }

  @Test
  void sameWhenEveryPartIsKnownAndEqual() {
    assertThat(RECORDED.match(new ProcessIdentity(4242, 1000, "boot-a"))).isEqualTo(Match.SAME);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "a pid reused by a process started later, 4242, 1001, boot-a",
    "another boot, 4242, 1000, boot-b",
    "another pid, 4243, 1000, boot-a"
  })
  void differentWhenAKnownPartDiffers(String what, long pid, long startTime, String bootId) {
    assertThat(RECORDED.match(new ProcessIdentity(pid, startTime, bootId)))
        .isEqualTo(Match.DIFFERENT);
  }

  @Test
  void unknownPartsAreNeverDifferent() {
    assertThat(RECORDED.match(ProcessIdentity.ofPid(4242))).isEqualTo(Match.UNKNOWN);
    assertThat(ProcessIdentity.ofPid(4242).match(RECORDED)).isEqualTo(Match.UNKNOWN);
    assertThat(RECORDED.match(new ProcessIdentity(4242, 1000, ""))).isEqualTo(Match.UNKNOWN);
    assertThat(RECORDED.match(new ProcessIdentity(4242, -1, "boot-a"))).isEqualTo(Match.UNKNOWN);
  }

  @Test
  void completeness() {
    assertThat(RECORDED.isComplete()).isTrue();
    assertThat(ProcessIdentity.ofPid(7).isComplete()).isFalse();
  }

  @Test
  void rejectsInvalidParts() {
    assertThatThrownBy(() -> new ProcessIdentity(0, 1, "b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pid");
    assertThatThrownBy(() -> new ProcessIdentity(-5, 1, "b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ProcessIdentity(5, -2, "b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ProcessIdentity(5, 1, null))
        .isInstanceOf(NullPointerException.class);
  }
}
