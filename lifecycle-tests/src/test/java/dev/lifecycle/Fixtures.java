package dev.lifecycle;

import dev.lifecycle.testing.Requirement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Native adversaries compiled from {@code src/test/c} into {@code target/fixtures} by the test
 * tests themselves with gcc: without gcc on the PATH the test that needs one skips, or under
 * CI=true fails.
 */
public final class Fixtures {
  private static final Path SOURCES = Path.of("src/test/c");
  private static final Path OUT = Path.of("target/fixtures");

  private Fixtures() {}

  /** {@code titled}: a setproctitle daemon and a bounded fork storm (see titled.c). */
  public static synchronized Path titled() {
    return compiled("titled");
  }

  private static Path compiled(String name) {
    Path source = SOURCES.resolve(name + ".c");
    Path binary = OUT.resolve(name);
    Path gcc = Requirement.program("gcc");
    try {
      if (Files.isExecutable(binary)
          && Files.getLastModifiedTime(binary).compareTo(Files.getLastModifiedTime(source)) >= 0) {
        return binary.toAbsolutePath();
      }
      Files.createDirectories(OUT);
      Process compiler =
          new ProcessBuilder(
                  gcc.toString(), "-O2", "-Wall", "-o", binary.toString(), source.toString())
              .redirectErrorStream(true)
              .start();
      String output = new String(compiler.getInputStream().readAllBytes());
      if (!compiler.waitFor(60, TimeUnit.SECONDS) || compiler.exitValue() != 0) {
        compiler.destroyForcibly();
        throw new IllegalStateException("gcc failed for " + source + ": " + output);
      }
      return binary.toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compile " + source, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
