package dev.lifecycle.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** An unmet requirement skips the test, except under CI=true, where it fails it. */
class RequirementTest {
  private static final boolean CI = "true".equals(System.getenv("CI"));

  @TempDir Path dir;

  @Test
  void aMetRequirementReturns() {
    assertThatCode(() -> Requirement.require(true, "present")).doesNotThrowAnyException();
  }

  @Test
  void anUnmetRequirementSkipsOrUnderCiFails() {
    assertThatThrownBy(() -> Requirement.require(false, "no such tool"))
        .isInstanceOf(CI ? AssertionFailedError.class : TestAbortedException.class)
        .hasMessageContaining("no such tool");
    assertThatThrownBy(() -> Requirement.unmet("no such tool"))
        .isInstanceOf(CI ? AssertionFailedError.class : TestAbortedException.class);
  }

  @Test
  void aProgramIsTheFirstExecutableFileOfThatNameOnThePath() throws Exception {
    Path plain = Files.createDirectory(dir.resolve("plain"));
    Files.createFile(plain.resolve("tool")); // not executable
    Path folder = Files.createDirectory(dir.resolve("folder"));
    Files.createDirectory(folder.resolve("tool")); // executable, but a directory
    Path first = Files.createDirectory(dir.resolve("first"));
    Path second = Files.createDirectory(dir.resolve("second"));
    for (Path bin : new Path[] {first, second}) {
      Files.createFile(
          bin.resolve("tool"),
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    }
    String path =
        String.join(":", "", plain.toString(), folder.toString(), first + "", second + "");
    assertThat(Requirement.search("tool", path)).contains(first.resolve("tool"));
    assertThat(Requirement.search("tool", plain + ":" + folder)).isEmpty();
    assertThat(Requirement.search("tool", "")).isEmpty();
  }

  @Test
  void aProgramOnThePathIsFoundWithoutRunningIt() {
    assertThat(Requirement.onPath("sh")).isPresent();
    assertThat(Requirement.onPath("no-such-program-" + ProcessHandle.current().pid())).isEmpty();
  }

  @Test
  void programsOnThePathAreNotMissing() {
    assertThat(Requirement.missing(List.of())).isEmpty();
    assertThat(Requirement.missing(List.of("setpriv", "unshare"))).isEmpty(); // util-linux
  }

  @Test
  void aProgramWithoutAKnownPackageIsAMistakeInTheTest() {
    assertThatThrownBy(() -> Requirement.program("no-such-program"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no Debian package known");
    assertThatThrownBy(() -> Requirement.missing(List.of("no-such-program")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Requirement.search("bin/sh", "/usr"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
