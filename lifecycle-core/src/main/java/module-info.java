/**
 * lifecycle: supervise process lifecycles so that nothing a program starts outlives its purpose.
 *
 * <p>API packages: {@link dev.lifecycle.time} (limits and guard timers), {@link
 * dev.lifecycle.guard} (runaway ceilings and the watchdog), {@link dev.lifecycle.process} (the
 * platform SPI and its values), {@link dev.lifecycle.tree} (process trees and staged termination),
 * {@link dev.lifecycle.record} and {@link dev.lifecycle.probe} (session records and endpoint
 * probes), {@link dev.lifecycle.broker}, {@link dev.lifecycle.worker}, {@link dev.lifecycle.tether}
 * and {@link dev.lifecycle.inventory} (what lifecycle left on the machine, and its exact sweep).
 * The {@code /proc} reader, the cgroup v2 mechanism, the signal guards of the platforms and the
 * internal toolkit are exported only to lifecycle's own modules; the pure-JDK fallback platform is
 * not exported at all. No public signature of an API package names a type of those packages.
 *
 * <p>The native platform comes from {@code dev.lifecycle.posix} through {@link
 * dev.lifecycle.process.ProcessPlatformProvider}; without it, {@link
 * dev.lifecycle.process.ProcessPlatform#get()} falls back to the pure-JDK platform.
 *
 * @uses dev.lifecycle.process.ProcessPlatformProvider
 */
module dev.lifecycle.core {
  requires org.slf4j;

  exports dev.lifecycle.broker;
  exports dev.lifecycle.guard;
  exports dev.lifecycle.inventory;
  exports dev.lifecycle.probe;
  exports dev.lifecycle.process;
  exports dev.lifecycle.record;
  exports dev.lifecycle.tether;
  exports dev.lifecycle.time;
  exports dev.lifecycle.tree;
  exports dev.lifecycle.worker;
  exports dev.lifecycle.process.procfs to
      dev.lifecycle.posix;
  exports dev.lifecycle.process.spi to
      dev.lifecycle.posix;
  exports dev.lifecycle.process.cgroup to
      dev.lifecycle.posix,
      dev.lifecycle.testkit;
  exports dev.lifecycle.internal to
      dev.lifecycle.posix,
      dev.lifecycle.testkit,
      dev.lifecycle.mcp;

  uses dev.lifecycle.process.ProcessPlatformProvider;
}
