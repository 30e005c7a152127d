package dev.lifecycle.bench;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Path;

/** The child JVMs of the harnesses: the running JDK's launcher and the jar of these classes. */
final class HarnessJvm {
  private HarnessJvm() {}

  /** The {@code java} launcher of the JDK that runs the harness. */
  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The benchmarks jar (or classes directory) the harness runs from: the children's class path. */
  static String jar() throws URISyntaxException {
    return new File(HarnessJvm.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        .getPath();
  }
}
