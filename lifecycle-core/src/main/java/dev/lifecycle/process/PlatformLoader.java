package dev.lifecycle.process;

import dev.lifecycle.process.jdk.JdkPlatform;
import java.util.Comparator;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Chooses the platform once per JVM (holder idiom: lazy, thread-safe, no locks afterwards). */
final class PlatformLoader {
  private static final Logger LOG = LoggerFactory.getLogger(PlatformLoader.class);

  private PlatformLoader() {}

  static ProcessPlatform best() {
    return Best.INSTANCE;
  }

  static ProcessPlatform jdk() {
    return Jdk.INSTANCE;
  }

  private static final class Jdk {
    static final ProcessPlatform INSTANCE = JdkPlatform.create();
  }

  private static final class Best {
    static final ProcessPlatform INSTANCE = load();

    private static ProcessPlatform load() {
      for (ProcessPlatformProvider provider :
          ServiceLoader.load(ProcessPlatformProvider.class).stream()
              .map(ServiceLoader.Provider::get)
              .sorted(Comparator.comparingInt(ProcessPlatformProvider::priority).reversed())
              .toList()) {
        try {
          if (provider.isSupported()) {
            ProcessPlatform platform = provider.create();
            LOG.debug("process platform: {}", platform.capabilities());
            return platform;
          }
        } catch (RuntimeException | LinkageError e) {
          LOG.warn("process platform {} failed to start; trying the next", provider, e);
        }
      }
      return jdk();
    }
  }
}
