package dev.lifecycle.cli;

import dev.lifecycle.inventory.FoundTree;
import dev.lifecycle.inventory.Inventory;
import dev.lifecycle.inventory.ReapReport;
import dev.lifecycle.inventory.StoreStatus;
import dev.lifecycle.process.ProcessPlatform;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code lifecycle} command: {@code ps}, {@code reap} and {@code doctor}. Run once per process
 * from {@link #main}; {@link #run} is the same without exiting, for tests. Not for concurrent use:
 * one call at a time per stream pair.
 *
 * <p>Exit codes: {@value #OK} done or nothing to do, {@value #NOT_ENDED} something could not be
 * ended, {@value #USAGE} usage error, {@value #FAILED} the command failed (one line on stderr).
 */
public final class Main {
  /** Done, or nothing to do. */
  public static final int OK = 0;

  /** A tree that {@code reap --yes} tried to end has survivors. */
  public static final int NOT_ENDED = 1;

  /** The command line is wrong. */
  public static final int USAGE = 2;

  /** The command failed (the reason is one line on stderr). */
  public static final int FAILED = 3;

  static final String USAGE_TEXT =
      "usage: lifecycle <command> [options]\n"
          + "  ps [--json] [--store DIR]...   the trees lifecycle made on this machine, and their owners\n"
          + "  reap [--yes] [--grace DURATION] [--include-detached] [--tree ID]... [--json]\n"
          + "                                 end the trees whose owner is proven gone (dry run without --yes)\n"
          + "  doctor [--json]                what a JVM started here gets, and how to get the stronger tier\n"
          + "exit codes: 0 done or nothing to do, 1 something could not be ended, 2 usage, 3 failure\n"
          + "lifecycle <command> --help for the command's options\n";

  private static final String PS_HELP =
      "usage: lifecycle ps [--json] [--store DIR]...\n"
          + "Lists every tree lifecycle made on this machine that still has a live member: CGROUP\n"
          + "trees (owned cgroups), SESSION trees (by cookie) and tether sidecars, with the owner\n"
          + "and its verdict (ALIVE, GONE = proven gone, NOT_PROVABLE), age, CPU over 200 ms, RSS\n"
          + "and the members as a tree. --store DIR also reads a record store, without changing it.\n"
          + "--json prints one JSON object for tools.\n";

  private static final String REAP_HELP =
      "usage: lifecycle reap [--yes] [--grace DURATION] [--include-detached] [--tree ID]... [--json]\n"
          + "Without --yes: a dry run that lists what would be ended and why. With --yes: ends each\n"
          + "tree whose owner is proven gone (SIGTERM, the grace, SIGKILL, verify) and prints one\n"
          + "report per tree. Never touches a live owner's tree, one whose owner cannot be proven\n"
          + "gone, a tether sidecar, or a tree that holds this command. Detached trees only with\n"
          + "--include-detached. --tree ID (repeatable) looks only at the trees with that id (as ps\n"
          + "shows it). --grace: 500ms, 5s, 1m, PT5S; default 5s; 0 = SIGKILL at once.\n"
          + "Exit 1 when a tree could not be ended.\n";

  private static final String DOCTOR_HELP =
      "usage: lifecycle doctor [--json]\n"
          + "What a JVM started here gets: platform, containment tier and the exact reason, kernel,\n"
          + "libc, cgroup v2 mount, the JVM flags needed, and how to get the CGROUP tier.\n";

  private Main() {}

  /**
   * Runs the command and exits with its code.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
    }
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the command.
   *
   * @param args the command line
   * @param out where results go
   * @param err where the one-line error goes
   * @return the exit code
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      err.print(USAGE_TEXT);
      return USAGE;
    }
    String command = args[0];
    if (command.equals("--help") || command.equals("-h") || command.equals("help")) {
      out.print(USAGE_TEXT);
      return OK;
    }
    boolean json = false;
    boolean yes = false;
    boolean includeDetached = false;
    Duration grace = Duration.ofSeconds(5);
    List<Path> stores = new ArrayList<>();
    List<String> only = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--help", "-h" -> {
          out.print(
              switch (command) {
                case "ps" -> PS_HELP;
                case "reap" -> REAP_HELP;
                case "doctor" -> DOCTOR_HELP;
                default -> USAGE_TEXT;
              });
          return OK;
        }
        case "--json" -> json = true;
        case "--yes" -> yes = true;
        case "--include-detached" -> includeDetached = true;
        case "--grace", "--store", "--tree" -> {
          if (i + 1 >= args.length) {
            err.println("lifecycle: " + a + " needs a value");
            return USAGE;
          }
          String value = args[++i];
          if (a.equals("--store")) {
            stores.add(Path.of(value));
          } else if (a.equals("--tree")) {
            only.add(value);
          } else {
            try {
              dev.lifecycle.time.Limit limit = dev.lifecycle.time.Limit.parse(value);
              grace = limit.isEnabled() ? limit.duration() : java.time.Duration.ZERO;
            } catch (IllegalArgumentException e) {
              err.println("lifecycle: --grace: " + e.getMessage());
              return USAGE;
            }
          }
        }
        default -> {
          err.println(
              "lifecycle " + command + ": unknown option " + a + " (--help for the options)");
          return USAGE;
        }
      }
    }
    Optional<String> misplaced =
        switch (command) {
          case "ps" ->
              yes || includeDetached || !only.isEmpty()
                  ? Optional.of("--yes, --include-detached and --tree are reap's")
                  : Optional.empty();
          case "reap" -> stores.isEmpty() ? Optional.empty() : Optional.of("--store is ps's");
          case "doctor" ->
              yes || includeDetached || !stores.isEmpty() || !only.isEmpty()
                  ? Optional.of("doctor takes only --json")
                  : Optional.empty();
          default -> Optional.of("unknown command " + command);
        };
    if (misplaced.isPresent()) {
      err.println("lifecycle: " + misplaced.get() + " (lifecycle --help)");
      return USAGE;
    }
    try {
      return switch (command) {
        case "ps" -> ps(json, stores, out);
        case "reap" -> reap(json, yes, grace, includeDetached, only, out);
        default -> doctor(json, out);
      };
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("lifecycle: interrupted");
      return FAILED;
    } catch (RuntimeException e) {
      err.println("lifecycle " + command + ": " + oneLine(e));
      return FAILED;
    }
  }

  private static int ps(boolean json, List<Path> storeDirs, PrintStream out)
      throws InterruptedException {
    Inventory inventory = Inventory.of(ProcessPlatform.get());
    List<FoundTree> trees = inventory.take();
    List<StoreStatus> stores = new ArrayList<>();
    for (Path dir : storeDirs) {
      stores.add(inventory.readStore(dir));
    }
    if (json) {
      out.println(Render.json(trees, stores, false));
    } else {
      out.print(Render.table(trees, false));
      out.print(Render.stores(stores));
    }
    return OK;
  }

  private static int reap(
      boolean json,
      boolean yes,
      Duration grace,
      boolean includeDetached,
      List<String> only,
      PrintStream out)
      throws InterruptedException {
    Inventory inventory = Inventory.of(ProcessPlatform.get()).withWindow(Duration.ZERO);
    List<FoundTree> trees = new ArrayList<>();
    for (FoundTree t : inventory.take()) {
      if (only.isEmpty() || only.contains(t.id())) {
        trees.add(t);
      }
    }
    List<ReapReport> reports;
    if (yes) {
      reports = inventory.reap(trees, grace, includeDetached);
    } else {
      reports = new ArrayList<>();
      for (FoundTree t : trees) {
        Optional<String> kept = t.whyKept(includeDetached);
        reports.add(
            new ReapReport(
                t,
                Optional.empty(),
                kept.map(w -> "left alone: " + w)
                    .orElse(
                        "would end "
                            + t.members().size()
                            + " processes: owner "
                            + t.owner().reason())));
      }
    }
    boolean failed = false;
    if (json) {
      out.println(Render.reapJson(reports, !yes));
    } else {
      if (reports.isEmpty()) {
        out.println("no lifecycle trees on this machine: nothing to do");
      }
      for (ReapReport r : reports) {
        out.println(r.tree().kind() + " " + r.tree().id() + ": " + r.outcome());
      }
      if (!yes && reports.stream().anyMatch(r -> r.outcome().startsWith("would"))) {
        out.println(
            "dry run: nothing was signalled; run with --yes to end the trees marked 'would end'");
      }
    }
    for (ReapReport r : reports) {
      failed |= r.failed();
    }
    return failed ? NOT_ENDED : OK;
  }

  private static int doctor(boolean json, PrintStream out) {
    var facts = Doctor.facts();
    out.print(json ? Doctor.json(facts) + "\n" : Doctor.text(facts));
    return OK;
  }

  private static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return m.replace('\n', ' ');
  }
}
