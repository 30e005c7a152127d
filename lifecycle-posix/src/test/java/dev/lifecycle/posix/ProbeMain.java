package dev.lifecycle.posix;

import dev.lifecycle.process.Signal;
import dev.lifecycle.process.procfs.ProcLiveness;

/**
 * Run by {@link ProbeTest} as an unprivileged user: prints the liveness of the pid in {@code
 * args[0]} by the native probe and by {@code /proc} alone, the result of sending SIGKILL to the
 * process in {@code args[1]}, and the native probe of the (another user's) zombie in {@code
 * args[2]}.
 */
public final class ProbeMain {
  private ProbeMain() {}

  public static void main(String[] args) {
    PosixPlatform platform = PosixPlatform.create();
    System.out.println(platform.probe(Long.parseLong(args[0])));
    System.out.println(ProcLiveness.probe(Long.parseLong(args[0])));
    long victim = Long.parseLong(args[1]);
    System.out.println(platform.signal(platform.identify(victim).orElseThrow(), Signal.KILL));
    System.out.println(platform.probe(Long.parseLong(args[2])));
  }
}
