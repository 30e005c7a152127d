package dev.lifecycle.testkit.container;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** When a container check may skip: never under CI=true. No Docker needed. */
class ContainerCheckSkipTest {
  @Test
  void withoutDockerALaptopSkips() {
    assertThatThrownBy(() -> ContainerCheck.assumeRunnable(Map.of(), true, false))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("no Docker engine");
  }

  @Test
  void withoutDockerCiFails() {
    assertThatThrownBy(() -> ContainerCheck.assumeRunnable(Map.of("CI", "true"), true, false))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("CI=true")
        .hasMessageContaining("no Docker engine");
  }

  @Test
  void withoutBusyboxCiFailsNamingIt() {
    assertThatThrownBy(() -> ContainerCheck.assumeRunnable(Map.of("CI", "true"), false, true))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("busybox");
  }

  @Test
  void ciFalseStillSkips() {
    assertThatThrownBy(() -> ContainerCheck.assumeRunnable(Map.of("CI", "false"), false, false))
        .isInstanceOf(TestAbortedException.class);
  }

  @Test
  void withBothItRuns() {
    assertThatCode(() -> ContainerCheck.assumeRunnable(Map.of("CI", "true"), true, true))
        .doesNotThrowAnyException();
  }
}
