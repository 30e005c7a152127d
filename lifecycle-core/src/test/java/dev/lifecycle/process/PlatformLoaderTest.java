package dev.lifecycle.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.internal.PlatformRequirements;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The platform choice and its switch ({@code lifecycle.platform} / {@code LIFECYCLE_PLATFORM}). */
class PlatformLoaderTest {

  private static PlatformMode mode(Map<String, String> properties, Map<String, String> env) {
    return PlatformMode.fromConfig(properties::get, env::get);
  }

  @Test
  void modeFromPropertyOrEnvironment() {
    assertThat(mode(Map.of(), Map.of())).isEqualTo(PlatformMode.AUTO);
    assertThat(mode(Map.of(), Map.of("LIFECYCLE_PLATFORM", "native")))
        .isEqualTo(PlatformMode.NATIVE);
    assertThat(mode(Map.of("lifecycle.platform", " JDK "), Map.of("LIFECYCLE_PLATFORM", "native")))
        .isEqualTo(PlatformMode.JDK);
    // unusable: warned about and ignored, never "disabled"
    assertThat(mode(Map.of("lifecycle.platform", "posix"), Map.of("LIFECYCLE_PLATFORM", "native")))
        .isEqualTo(PlatformMode.NATIVE);
    assertThat(mode(Map.of("lifecycle.platform", ""), Map.of())).isEqualTo(PlatformMode.AUTO);
  }

  @Test
  void requiringANativePlatformWithoutOneFailsWithTheReason() {
    // core's test class path has no provider
    Object chosen = PlatformLoader.choose(PlatformMode.NATIVE);
    assertThat(chosen).isInstanceOf(IllegalStateException.class);
    assertThat(((Exception) chosen).getMessage())
        .contains("lifecycle.platform=native")
        .contains("no native process platform on the class path")
        .contains("lifecycle-posix");
  }

  @Test
  void autoAndJdkFallBackToTheJdkPlatform() {
    assertThat(PlatformLoader.choose(PlatformMode.AUTO)).isSameAs(ProcessPlatform.jdk());
    assertThat(PlatformLoader.choose(PlatformMode.JDK)).isSameAs(ProcessPlatform.jdk());
  }

  @Test
  void posixSystemsPassTheRequirementCheck() {
    assertThat(PlatformRequirements.isPosix()).isTrue();
    PlatformRequirements.requirePosix("test"); // does not throw here
  }
}
