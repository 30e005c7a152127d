package dev.lifecycle;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** This JVM's test classpath, copied where an unprivileged user can read it (~/.m2 is root's). */
public final class ReadableClasspath {
  private ReadableClasspath() {}

  /**
   * Copies every classpath entry under {@code dir/cp} and makes all of {@code dir} readable by
   * everyone.
   *
   * @param dir a directory of the test's own, e.g. its {@code @TempDir}
   * @return the copied classpath, for {@code -cp}
   * @throws IOException if a copy or a permission change fails
   */
  public static String copyUnder(Path dir) throws IOException {
    Path cp = Files.createDirectories(dir.resolve("cp"));
    List<String> entries = new ArrayList<>();
    int i = 0;
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path source = Path.of(entry);
      if (!Files.exists(source)) {
        continue;
      }
      Path target = cp.resolve((i++) + "-" + source.getFileName());
      if (Files.isDirectory(source)) {
        try (Stream<Path> walk = Files.walk(source)) {
          for (Path p : (Iterable<Path>) walk::iterator) {
            Path to = target.resolve(source.relativize(p).toString());
            if (Files.isDirectory(p)) {
              Files.createDirectories(to);
            } else {
              Files.copy(p, to);
            }
          }
        }
      } else {
        Files.copy(source, target);
      }
      entries.add(target.toString());
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        Files.setPosixFilePermissions(
            p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
      }
    }
    return String.join(File.pathSeparator, entries);
  }
}
