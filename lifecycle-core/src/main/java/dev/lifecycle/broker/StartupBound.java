package dev.lifecycle.broker;

import dev.lifecycle.time.Guards;
import dev.lifecycle.time.TimerHandle;
import dev.lifecycle.tree.SelfTermination;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's startup bound: armed when it starts, cancelled once it serves or shuts down. Until it
 * listens nothing else can end a broker (no idle timer, no client, a gone spawner), so past the
 * bound the shutdown pass is followed by {@link SelfTermination} of the broker's whole tree (which
 * also ends what the startup was still spawning and had not adopted yet) and exit status {@link
 * BrokerRuntime#STARTUP_OVERRUN_EXIT_CODE}. Thread-safe.
 */
final class StartupBound {
  // The runtime's logger: its lines keep the name embedders configure their level by.
  private static final Logger LOG = LoggerFactory.getLogger(BrokerRuntime.class);

  private final BrokerSettings settings;
  private volatile TimerHandle guard = TimerHandle.NONE;

  StartupBound(BrokerSettings settings) {
    this.settings = settings;
  }

  /** Runs {@code overrun} (on the scheduler's thread) if {@link #cancel} does not come first. */
  void arm(Runnable overrun) {
    guard = Guards.arm(settings.startupTimeout, overrun, settings.scheduler);
  }

  void cancel() {
    guard.cancel();
  }

  /** After the pass of an overrun: ends this JVM's tree and this JVM, unless tests keep it. */
  void overran() {
    if (!settings.exitOnStartupOverrun) {
      return;
    }
    // The JVM is not exiting yet (the exit comes after the tree is down): the logger still works.
    LOG.error(
        "broker {} was not serving within {}; terminating its tree",
        settings.name,
        settings.startupTimeout);
    SelfTermination.builder()
        .platform(settings.platform)
        .grace(settings.backendGrace)
        .exitCode(BrokerRuntime.STARTUP_OVERRUN_EXIT_CODE)
        .build()
        .terminateAndExit();
  }
}
