package dev.lifecycle.inventory;

import dev.lifecycle.process.ProcessInfo;
import dev.lifecycle.process.ProcessPlatform;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Tether sidecars, by their command line: {@code sh -c <script> lifecycle-tether <grace> <owner
 * pid>}.
 */
final class Tethers {
  private static final String NAME = "lifecycle-tether";
  private static final int OWNER_ARG = 5;

  private Tethers() {}

  static List<Candidate> find(ProcessPlatform platform, FirstLook look) {
    List<Candidate> out = new ArrayList<>();
    for (ProcessInfo shell : look.shells) {
      Optional<List<String>> argv = platform.commandLine(shell.pid());
      if (argv.isPresent() && isTether(argv.get())) {
        out.add(
            new Candidate(
                FoundTree.Kind.TETHER,
                "tether-" + shell.pid(),
                Optional.empty(),
                look.cookieOf.getOrDefault(shell.pid(), ""),
                List.of(shell)));
      }
    }
    return out;
  }

  /** The owner pid a sidecar's command line names, or -1 when it names none readable. */
  static long ownerPid(List<String> argv) {
    try {
      return Long.parseLong(argv.get(OWNER_ARG));
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private static boolean isTether(List<String> argv) {
    return argv.size() == OWNER_ARG + 1 && argv.get(1).equals("-c") && argv.get(3).equals(NAME);
  }
}
