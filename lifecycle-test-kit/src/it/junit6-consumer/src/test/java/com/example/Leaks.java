package com.example;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Starts daemons by a path under target/, so the verify script can tell ours from the world's. */
final class Leaks {
  private Leaks() {}

  static Path sleep() throws IOException {
    Path link = Path.of("target", "leak-sleep").toAbsolutePath();
    if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      Files.createSymbolicLink(link, Path.of("/bin/sleep"));
    }
    return link;
  }

  /** A daemon that leaves this JVM's session and parentage at once (setsid -f). */
  static void daemon(String seconds) throws Exception {
    Process p =
        new ProcessBuilder("setsid", "-f", sleep().toString(), seconds)
            .redirectOutput(new File("/dev/null"))
            .redirectErrorStream(true)
            .start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("setsid failed");
    }
  }
}
