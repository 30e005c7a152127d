package dev.lifecycle.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.internal.PlatformRequirements;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    PlatformLoader.Loaded chosen = PlatformLoader.choose(PlatformMode.NATIVE);
    assertThat(chosen.loaded()).isNull();
    assertThat(chosen.failure()).isInstanceOf(IllegalStateException.class);
    assertThat(chosen.failure().getMessage())
        .contains("lifecycle.platform=native")
        .contains("no native process platform on the class path")
        .contains("lifecycle-posix");
  }

  @Test
  void autoAndJdkFallBackToTheJdkPlatform() {
    assertThat(PlatformLoader.choose(PlatformMode.AUTO).platform()).isSameAs(ProcessPlatform.jdk());
    assertThat(PlatformLoader.choose(PlatformMode.JDK).platform()).isSameAs(ProcessPlatform.jdk());
  }

  /**
   * Without lifecycle-posix visible to core's loader, providers come from the ServiceLoader of the
   * thread's context loader, highest priority first, and their reasons explain the fallback.
   */
  @Test
  void withoutThePosixProviderTheServiceLoaderIsAsked(@TempDir Path tmp) throws Exception {
    Path services = Files.createDirectories(tmp.resolve("META-INF/services"));
    Files.writeString(
        services.resolve(ProcessPlatformProvider.class.getName()),
        ServiceListedProviders.Low.class.getName()
            + "\n# a comment\n"
            + ServiceListedProviders.High.class.getName()
            + "\n");
    Thread thread = Thread.currentThread();
    ClassLoader original = thread.getContextClassLoader();
    try (URLClassLoader listing = new URLClassLoader(new URL[] {tmp.toUri().toURL()}, original)) {
      thread.setContextClassLoader(listing);
      assertThat(PlatformLoader.load())
          .extracting(ProcessPlatformProvider::priority)
          .containsExactly(50, 5);
      PlatformLoader.Loaded chosen =
          PlatformLoader.choose(PlatformMode.NATIVE, PlatformLoader.load());
      assertThat(chosen.failure().getMessage())
          .contains("High is a test provider; Low is a test provider");
    } finally {
      thread.setContextClassLoader(original);
    }
    assertThat(PlatformLoader.load()).isEmpty();
  }

  @Test
  void posixSystemsPassTheRequirementCheck() {
    assertThat(PlatformRequirements.isPosix()).isTrue();
    PlatformRequirements.requirePosix("test"); // does not throw here
  }
}
