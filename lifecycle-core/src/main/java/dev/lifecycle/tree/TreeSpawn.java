package dev.lifecycle.tree;

import dev.lifecycle.guard.Enforcement;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ContainmentTier;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.process.SupervisedProcess;
import dev.lifecycle.process.cgroup.Cgroup;
import dev.lifecycle.process.cgroup.CgroupEntryException;
import dev.lifecycle.process.cgroup.OwnedCgroups;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Starting a {@link ProcessTree}: the containment decision, the tree's own cgroup (stale ones of
 * SIGKILLed JVMs removed first), the spawn hook, and the fall-back to the SESSION tier when a
 * cgroup cannot be used. Stateless apart from the parents already cleaned; thread-safe.
 */
final class TreeSpawn {
  private static final LazyLogger LOG = LazyLogger.of(TreeSpawn.class);
  private static final Set<Path> CLEANED = ConcurrentHashMap.newKeySet();
  private static final int COMMAND_TEXT_MAX = 160;

  private TreeSpawn() {}

  static ProcessTree spawn(
      ProcessPlatform platform,
      ProcessBuilder builder,
      TreeOptions options,
      String cookie,
      Consumer<TreePlacement> beforeStart)
      throws IOException {
    Objects.requireNonNull(platform, "platform");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(builder, "builder");
    AdoptedZombies.warnOnceIfInit(platform);
    SpawnOptions spawn =
        SpawnOptions.defaults()
            .withNewSession(true)
            .withKeepLeaderUnreaped(true)
            .withTreeCookie(cookie);
    Containment containment =
        options.containment().map(Containment::of).orElseGet(Containment::current);
    String text = commandText(builder.command());
    if (!containment.isRequirementMet()) {
      throw new IOException(
          "CGROUP containment is required but not available: "
              + containment.reason()
              + "; command: "
              + builder.command());
    }
    if (containment.tier() != ContainmentTier.CGROUP) {
      return inSession(platform, builder, options, spawn, containment.reason(), text, beforeStart);
    }
    Cgroup parent = Cgroup.at(containment.parent().orElseThrow());
    if (CLEANED.add(parent.path())) {
      // Left by a JVM of ours that was SIGKILLed. No boot id in a name: a cgroup ends with its
      // boot.
      OwnedCgroups.removeStale(
          parent,
          (pid, start) ->
              Liveness.judge(platform, new ProcessIdentity(pid, start, "")).isProvenGone());
    }
    Cgroup own;
    try {
      own =
          parent.createChild(
              OwnedCgroups.newName(platform.self().pid(), platform.self().startTime()));
    } catch (IOException e) {
      return fallBack(platform, builder, options, spawn, containment, text, e, beforeStart);
    }
    try {
      announce(beforeStart, new TreePlacement(cookie, Optional.of(own.path())));
    } catch (IOException e) {
      CgroupRemoval.removeQuietly(own);
      throw e;
    }
    Enforcement enforcement = GuardedTree.inCgroup(parent, own, options);
    SupervisedProcess child;
    try {
      child = platform.spawn(builder, spawn.withCgroup(own.path()));
    } catch (CgroupEntryException e) {
      CgroupRemoval.removeQuietly(own);
      return fallBack(platform, builder, options, spawn, containment, text, e, beforeStart);
    } catch (IOException | RuntimeException e) {
      CgroupRemoval.removeQuietly(own);
      throw e;
    }
    // The entering shell and the platform's own move put the leader in: no check here.
    return new ProcessTree(
            platform,
            child,
            options,
            Optional.of(own),
            "cgroup " + own + " under " + containment.reason(),
            text,
            enforcement)
        .watch();
  }

  /** AUTO mode: a cgroup that cannot be used for this spawn leaves the tree in SESSION tier. */
  private static ProcessTree fallBack(
      ProcessPlatform platform,
      ProcessBuilder builder,
      TreeOptions options,
      SpawnOptions spawn,
      Containment containment,
      String text,
      IOException why,
      Consumer<TreePlacement> beforeStart)
      throws IOException {
    if (containment.mode() == Containment.Mode.REQUIRE_CGROUP) {
      throw why;
    }
    LOG.warn(
        "tree of {} falls back to SESSION containment: {}", builder.command(), why.getMessage());
    return inSession(platform, builder, options, spawn, why.getMessage(), text, beforeStart);
  }

  private static ProcessTree inSession(
      ProcessPlatform platform,
      ProcessBuilder builder,
      TreeOptions options,
      SpawnOptions spawn,
      String reason,
      String text,
      Consumer<TreePlacement> beforeStart)
      throws IOException {
    announce(beforeStart, new TreePlacement(spawn.treeCookie(), Optional.empty()));
    return new ProcessTree(
            platform,
            platform.spawn(builder, spawn),
            options,
            Optional.empty(),
            reason,
            text,
            GuardedTree.watchdogOnly(options, reason))
        .watch();
  }

  private static void announce(Consumer<TreePlacement> hook, TreePlacement placement)
      throws IOException {
    try {
      hook.accept(placement);
    } catch (RuntimeException e) {
      throw new IOException("not started: the spawn hook failed: " + e.getMessage(), e);
    }
  }

  private static String commandText(List<String> command) {
    String text = String.join(" ", command);
    return text.length() <= COMMAND_TEXT_MAX ? text : text.substring(0, COMMAND_TEXT_MAX) + "...";
  }
}
