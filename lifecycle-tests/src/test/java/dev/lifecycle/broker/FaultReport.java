package dev.lifecycle.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes one row of the fault campaign to {@code target/faults/<row>.txt} and stdout. */
public final class FaultReport {
  private FaultReport() {}

  public static void write(String row, String text) throws IOException {
    Path dir = Path.of("target", "faults");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(row + ".txt"), text + "\n", StandardCharsets.UTF_8);
    System.out.println("=== " + row + "\n" + text);
  }
}
