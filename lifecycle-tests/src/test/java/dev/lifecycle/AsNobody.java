package dev.lifecycle;

import dev.lifecycle.testing.Requirement;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts programs as {@code nobody} ({@code setpriv}), the way an unprivileged user's owner runs:
 * needs root to switch users; the test classpath is copied where {@code nobody} can read it. Shared
 * by the tests that need another user.
 */
public final class AsNobody {
  private final Path setpriv;
  private final Path dir;
  private String classpath;

  private AsNobody(Path setpriv, Path dir) {
    this.setpriv = setpriv;
    this.dir = dir;
  }

  /** Skips (fails under CI) unless this JVM is root and {@code setpriv} is present. */
  public static AsNobody in(Path dir) throws IOException {
    Requirement.require(
        "0".equals(String.valueOf(Files.getAttribute(Path.of("/proc/self"), "unix:uid"))),
        "running an owner as another user needs root");
    return new AsNobody(Requirement.program("setpriv"), dir);
  }

  /** {@code command} as nobody, in a directory nobody can read; stdout piped. */
  public ProcessBuilder command(List<String> command) throws IOException {
    List<String> argv = new ArrayList<>();
    argv.add(setpriv.toString());
    argv.addAll(List.of("--reuid=nobody", "--regid=nogroup", "--clear-groups"));
    argv.addAll(command);
    ProcessBuilder b =
        new ProcessBuilder(argv).redirectError(Redirect.INHERIT).directory(readable().toFile());
    b.environment().put("HOME", "/nonexistent");
    b.environment().remove("LIFECYCLE_CGROUP_PARENT");
    return b;
  }

  /** A JVM running {@code main} as nobody with this test classpath. */
  public ProcessBuilder javaMain(Class<?> main, String... args) throws IOException {
    List<String> argv = new ArrayList<>();
    argv.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    argv.addAll(List.of("-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED"));
    argv.addAll(List.of("-cp", classpath(), main.getName()));
    argv.addAll(List.of(args));
    return command(argv);
  }

  private Path readable() throws IOException {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    return dir;
  }

  /** The test classpath copied where {@code nobody} can read it, once. */
  private synchronized String classpath() throws IOException {
    if (classpath == null) {
      classpath = ReadableClasspath.copyUnder(dir);
    }
    return classpath;
  }
}
