package dev.lifecycle.testing;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** An unmet requirement skips the test, except under CI=true, where it fails it. */
class RequirementTest {
  private static final boolean CI = "true".equals(System.getenv("CI"));

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
}
