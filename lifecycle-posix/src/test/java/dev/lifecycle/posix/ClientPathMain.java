package dev.lifecycle.posix;

import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;

/**
 * Run by {@link LazyLoadingTest} with class loading logged: what a client does (identify, probe,
 * the process table, a tree cookie), then a marker line, then {@link
 * ProcessPlatform#capabilities()}, which loads the platform.
 */
public final class ClientPathMain {
  private ClientPathMain() {}

  public static void main(String[] args) {
    ProcessPlatform platform = ProcessPlatform.get();
    System.out.println("probe self " + platform.probe(platform.self()));
    System.out.println("probe 1 " + platform.probe(1));
    System.out.println("clock " + platform.identityClock());
    System.out.println("table " + (platform.snapshot().size() > 1));
    System.out.println("group " + (platform.selfProcessGroup() > 0));
    System.out.println("cookie " + SpawnOptions.newCookie().length()); // every tree draws one
    System.out.println("=== loading the platform");
    System.out.println(platform.capabilities().platform());
  }
}
