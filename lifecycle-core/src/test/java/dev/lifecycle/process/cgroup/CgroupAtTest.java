package dev.lifecycle.process.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.testing.Requirement;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A cgroup named by its directory, as the public API hands it out (trees, spawn options). */
class CgroupAtTest {
  private CgroupHierarchy hierarchy;

  @BeforeEach
  void locate() {
    var found = CgroupHierarchy.locate();
    if (found.isEmpty()) {
      Requirement.unmet("no cgroup2 mount in /proc/self/mountinfo");
    }
    hierarchy = found.get();
  }

  @Test
  void aDirectoryUnderTheMountIsACgroupOfThatHierarchy() {
    Cgroup at = Cgroup.at(hierarchy.mountPoint().resolve("a/../job-1"));
    assertThat(at.path()).isEqualTo(hierarchy.mountPoint().resolve("job-1"));
    assertThat(at.relativePath()).isEqualTo("/job-1");
    // The hierarchy located last, not a new one: naming a cgroup by directory (each spawn into
    // one does) reads no mountinfo.
    assertThat(at.hierarchy()).isSameAs(hierarchy);
    assertThat(Cgroup.at(hierarchy.mountPoint())).isEqualTo(hierarchy.root());
  }

  @Test
  void aDirectoryOutsideTheMountIsRejectedByName() {
    Path outside = Path.of("/tmp/not-a-cgroup");
    assertThatThrownBy(() -> Cgroup.at(outside))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/tmp/not-a-cgroup");
    assertThatThrownBy(() -> Cgroup.at(hierarchy.mountPoint().resolve("..")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void spawnOptionsTakeTheDirectoryNormalizedAndRejectOneOutside() {
    Path job = hierarchy.mountPoint().resolve("job-1");
    SpawnOptions options = SpawnOptions.defaults().withCgroup(job.resolve("x/.."));
    assertThat(options.cgroup()).contains(job);
    assertThat(options.withTreeCookie("cookie-1234").cgroup()).contains(job);
    assertThatThrownBy(() -> SpawnOptions.defaults().withCgroup(Path.of("/tmp/not-a-cgroup")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/tmp/not-a-cgroup");
  }

  @Test
  void childNamesAreOnePathElementOfTheNameAlphabet() {
    Cgroup root = hierarchy.root();
    assertThat(root.child("lifecycle-1.a_b").path())
        .isEqualTo(hierarchy.mountPoint().resolve("lifecycle-1.a_b"));
    assertThat(root.child("x".repeat(200)).name()).hasSize(200);
    for (String bad : new String[] {"", ".", "..", "a/b", "a b", "é", "x".repeat(201)}) {
      assertThatThrownBy(() -> root.child(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void treeCookiesAreEightToSixtyFourOfTheCookieAlphabet() {
    assertThat(SpawnOptions.defaults().withTreeCookie("abcd-123").treeCookie())
        .isEqualTo("abcd-123");
    assertThat(SpawnOptions.defaults().withTreeCookie("x".repeat(64)).treeCookie()).hasSize(64);
    for (String bad :
        new String[] {"abc-123", "x".repeat(65), "abcd 1234", "abcdéfgh", "abcd=1234"}) {
      assertThatThrownBy(() -> SpawnOptions.defaults().withTreeCookie(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
