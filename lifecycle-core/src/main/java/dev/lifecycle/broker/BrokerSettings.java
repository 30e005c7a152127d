package dev.lifecycle.broker;

import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.internal.Setting;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.RecordStore;
import dev.lifecycle.tether.Tether;
import dev.lifecycle.time.Limit;
import dev.lifecycle.time.TimerScheduler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What a {@link BrokerRuntime.Builder} collected, checked and with every default filled in: the
 * configured values (system property, environment variable) are read once, when the broker is
 * built. Immutable.
 */
final class BrokerSettings {
  static final Setting<Duration> BACKEND_GRACE =
      Setting.duration(
          BrokerRuntime.BACKEND_GRACE_PROPERTY,
          BrokerRuntime.BACKEND_GRACE_ENV,
          BrokerRuntime.DEFAULT_BACKEND_GRACE);

  final RecordStore store;
  final String name;
  final RequestHandler handler;
  final ProcessPlatform platform;
  final TimerScheduler scheduler;
  final Limit startupTimeout;
  final Limit idleTimeout;
  final Duration backendGrace;
  final Ceilings backendCeilings;
  final boolean tcp;
  final BrokerRuntime.Startup startup; // null: none
  final BackendExit backendExit;
  final Tether tether; // null: the shared one
  final boolean shutdownHook;
  final boolean exitOnStartupOverrun;
  final PhaseHook phases;
  final Consumer<ShutdownPass.Step> observer;

  BrokerSettings(BrokerRuntime.Builder b) {
    store = Objects.requireNonNull(b.store, "store not set");
    name = Objects.requireNonNull(b.name, "name not set");
    store.recordFile(name); // validates the name now rather than at start
    handler = Objects.requireNonNull(b.handler, "handler not set");
    platform = b.platform != null ? b.platform : ProcessPlatform.get();
    scheduler = b.scheduler != null ? b.scheduler : TimerScheduler.system();
    startupTimeout = BrokerLimits.STARTUP.or(b.startupTimeout);
    idleTimeout = BrokerLimits.IDLE.or(b.idleTimeout);
    backendGrace = BACKEND_GRACE.resolve(b.backendGrace);
    backendCeilings =
        b.backendCeilings.isPresent()
            ? b.backendCeilings.get()
            : Ceilings.fromConfig(
                BrokerRuntime.BACKEND_CEILINGS_PROPERTY_PREFIX,
                BrokerRuntime.BACKEND_CEILINGS_ENV_PREFIX,
                Ceilings.none());
    tcp = b.tcp;
    startup = b.startup;
    backendExit = b.backendExit;
    tether = b.tether;
    shutdownHook = b.shutdownHook;
    exitOnStartupOverrun = b.exitOnStartupOverrun;
    phases = b.phases;
    observer = b.observer;
  }

  /** The tether backends are bound to: the configured one, else the shared one (started now). */
  Tether backendTether() throws IOException {
    if (tether != null) {
      return tether;
    }
    try {
      return Tether.shared();
    } catch (UncheckedIOException e) {
      throw new IOException("no tether for the backends of broker " + name, e.getCause());
    }
  }

  /** The store directory and name a {@link BrokerClient} passed in this process's environment. */
  record ClientEnvironment(Path directory, String name) {
    static ClientEnvironment read() {
      String directory = System.getenv(BrokerClient.DIRECTORY_VARIABLE);
      String name = System.getenv(BrokerClient.NAME_VARIABLE);
      boolean noDirectory = directory == null || directory.isBlank();
      boolean noName = name == null || name.isBlank();
      if (noDirectory || noName) {
        String missing =
            noDirectory && noName
                ? BrokerClient.DIRECTORY_VARIABLE + " and " + BrokerClient.NAME_VARIABLE
                : noDirectory ? BrokerClient.DIRECTORY_VARIABLE : BrokerClient.NAME_VARIABLE;
        throw new IllegalStateException(
            missing + " not set: a broker reads them from the BrokerClient that starts it");
      }
      return new ClientEnvironment(Path.of(directory), name);
    }
  }
}
