package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.Capabilities;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessPlatformProvider;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The ServiceLoader picks this platform, and its capabilities say what was detected. */
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
}
