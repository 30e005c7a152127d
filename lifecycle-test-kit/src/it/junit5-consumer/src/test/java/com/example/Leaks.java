package com.example;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Starts leaks by a path under target/, so the verify script can tell ours from the world's.
 */
final class Leaks {
  private Leaks() {}

  static Path sleep() throws IOException {
    Path link = Path.of("target", "leak-sleep").toAbsolutePath();
    if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
      Files.createSymbolicLink(link, Path.of("/bin/sleep"));
    }
    return link;
  }

  /**
   * A child left running: every attribution tier finds it (a member of the check's cgroup, or a
   * descendant of this JVM), so the outcome holds with or without a writable cgroup.
   */
  static void child(String seconds) throws IOException {
    new ProcessBuilder(sleep().toString(), seconds)
        .redirectOutput(new File("/dev/null"))
        .redirectErrorStream(true)
        .start();
  }
}
