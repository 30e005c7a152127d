package dev.lifecycle.cgroup;

import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.testing.Await;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TerminationReport;
import dev.lifecycle.tree.TreeOptions;
import dev.lifecycle.tree.TreeView;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;

/**
 * The child JVM of {@link UnprivilegedCgroupTest}, run as an unprivileged user inside a cgroup
 * delegated to it: spawns a tree that requires the CGROUP tier and escapes three ways (setsid
 * double fork, {@code env -i setsid -f}, a plain child), ends it, prints {@code TIER <tier>
 * <reason>}, {@code MEMBERS <n>} and {@code REPORT complete=<b> removed=<b> <report>}.
 */
public final class DelegatedTreeMain {
  private DelegatedTreeMain() {}

  public static void main(String[] args) throws Exception {
    ProcessTree tree =
        ProcessTree.spawn(
            ProcessPlatform.get(),
            new ProcessBuilder(
                    "sh",
                    "-c",
                    "sleep 0.2; ( setsid sleep 300 & ) ; env -i setsid -f sleep 301; sleep 300 &"
                        + " wait")
                .redirectInput(Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(Redirect.DISCARD),
            TreeOptions.defaults()
                .withGrace(Duration.ofMillis(200))
                .withContainment(Containment.Mode.REQUIRE_CGROUP));
    System.out.println("TIER " + tree.tier() + " " + tree.tierReason());
    // The settled tree: the leader and its three sleeps. On the way the count passes 4 with
    // short-lived helpers (the subshell, setsid -f's parent) and can drop back, so the count
    // printed is the one of the view that was judged settled.
    TreeView view = Await.within(Duration.ofSeconds(20), tree::view, DelegatedTreeMain::settled);
    System.out.println("MEMBERS " + view.all().size());
    TerminationReport report = tree.terminate();
    // The emptied cgroup is removed when its populated-0 notification arrives: poll, bounded.
    Await.within(
        Duration.ofSeconds(5), () -> !java.nio.file.Files.exists(tree.cgroup().orElseThrow()));
    System.out.println(
        "REPORT complete="
            + report.isComplete()
            + " removed="
            + !java.nio.file.Files.exists(tree.cgroup().orElseThrow())
            + " "
            + report);
    System.out.flush();
  }

  private static boolean settled(TreeView view) {
    return view.all().size() == 4
        && view.all().stream().filter(m -> m.command().equals("sleep")).count() == 3;
  }
}
