package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.Capabilities;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessPlatformProvider;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * This platform is registered for the ServiceLoader and chosen by default, found by its class name
 * (no class-path scan), and its capabilities say what was detected.
 */
class ProviderTest {

  @Test
  void registeredAndChosenByDefault() {
    assertThat(ServiceLoader.load(ProcessPlatformProvider.class).stream())
        .anySatisfy(p -> assertThat(p.type()).isEqualTo(PosixPlatformProvider.class));
    PosixPlatformProvider provider = new PosixPlatformProvider();
    assertThat(provider.priority()).isEqualTo(100);
    assertThat(provider.isSupported()).isTrue();
    assertThat(ProcessPlatform.get().capabilities())
        .isSameAs(PosixPlatform.create().capabilities());
    assertThat(provider.unsupportedReason()).isEqualTo("lifecycle-posix is supported");
  }

  @Test
  void capabilitiesOfThisMachine() {
    Capabilities capabilities = PosixPlatform.create().capabilities();
    assertThat(capabilities.platform()).isEqualTo("posix-linux");
    assertThat(PosixPlatform.create().identityClock()).isEqualTo("linux-proc");
    assertThat(capabilities.newSession()).isTrue();
    assertThat(capabilities.groupSignals()).isTrue();
    assertThat(capabilities.exactIdentity()).isTrue();
    assertThat(capabilities.details())
        .containsKeys("kernel", "libc", "pidfd", "spawn.closeFds", "spawn.chdir", "exitWatch");
    assertThat(PosixPlatform.create().describe()).contains("kernel: ");
    assertThat(PosixPlatform.create().toString()).contains("posix-linux");
  }

  /**
   * The provider is found by its class name: with this module's service registration removed from
   * the class path, the platform is still this one (a ServiceLoader lookup, which opens every jar
   * of the class path, would find nothing and fall back to the pure-JDK platform).
   */
  @Test
  void foundByNameWithoutItsServiceFile(@TempDir Path tmp) throws Exception {
    Path classes =
        Path.of(
            PosixPlatformProvider.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    assertThat(classes.resolve("META-INF/services")).isDirectory();
    Path copy = tmp.resolve("classes");
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Path relative = classes.relativize(file);
        if (!relative.startsWith("META-INF")) {
          Files.copy(file, copy.resolve(relative.toString()));
        }
      }
    }
    String classPath =
        Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(entry -> Path.of(entry).equals(classes) ? copy.toString() : entry)
            .collect(Collectors.joining(File.pathSeparator));
    assertThat(classPath).contains(copy.toString());
    String output = FreshJvm.runOn(classPath, PlatformStartMain.class);
    assertThat(output.lines()).as(output).contains("posix-linux");
  }
}
