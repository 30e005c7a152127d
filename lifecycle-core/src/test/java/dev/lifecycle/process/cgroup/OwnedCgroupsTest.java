package dev.lifecycle.process.cgroup;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OwnedCgroupsTest {

  @Test
  void aNewNameRecordsItsOwner() {
    String name = OwnedCgroups.newName(4242, 987_654_321L);
    assertThat(OwnedCgroups.owner(name))
        .hasValueSatisfying(o -> assertThat(o).containsExactly(4242L, 987_654_321L));
  }

  @Test
  void theWidestNameIsRead() {
    String name = "lifecycle-4294967295-18446744073709551-12345678901234-0123abcd";
    assertThat(OwnedCgroups.owner(name))
        .hasValueSatisfying(o -> assertThat(o).containsExactly(4294967295L, 18446744073709551L));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "lifecycle-",
        "lifecycle-1-2-3-0000abc", // 7 hex digits
        "lifecycle-1-2-3-0000abcde", // 9
        "lifecycle-1-2-3-0000ABCD", // upper case
        "lifecycle-1-2-3-0000abcg",
        "lifecycle--2-3-0000abcd",
        "lifecycle-1--3-0000abcd",
        "lifecycle-1-2--0000abcd",
        "lifecycle-12345678901-2-3-0000abcd", // an 11-digit pid
        "lifecycle-1-123456789012345678901-3-0000abcd", // a 21-digit start
        "lifecycle-1-99999999999999999999-3-0000abcd", // 20 digits beyond a long
        "Lifecycle-1-2-3-0000abcd",
        "other-1-2-3-0000abcd",
        "lifecycle-1-2-3-0000abcd-x",
        "lifecycle-١-2-3-0000abcd", // not an ASCII digit
        "lifecycle-1-2-3"
      })
  void otherNamesAreNotOurs(String name) {
    assertThat(OwnedCgroups.owner(name)).isEmpty();
  }
}
