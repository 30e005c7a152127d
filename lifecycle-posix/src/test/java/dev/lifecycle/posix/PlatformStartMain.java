package dev.lifecycle.posix;

import dev.lifecycle.process.ProcessPlatform;

/**
 * Run by {@link JnaSearchPathTest} with class loading logged: starts the platform (JNA and every
 * binding the first spawn needs), then prints JNA's search path property.
 */
public final class PlatformStartMain {
  private PlatformStartMain() {}

  public static void main(String[] args) {
    System.out.println(ProcessPlatform.get().capabilities().platform());
    System.out.println("path=" + System.getProperty(JnaSearchPath.PROPERTY));
  }
}
