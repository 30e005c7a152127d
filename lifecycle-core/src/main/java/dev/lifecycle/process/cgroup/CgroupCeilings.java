package dev.lifecycle.process.cgroup;

import static java.nio.charset.StandardCharsets.US_ASCII;

import dev.lifecycle.guard.Breach;
import dev.lifecycle.guard.Ceilings;
import dev.lifecycle.guard.Enforcement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Kernel enforcement of {@link Ceilings} in a tree's cgroup: enables the {@code memory}, {@code
 * pids} and {@code cpu} controllers in the parent's {@code cgroup.subtree_control} where the
 * hierarchy offers them and the no-internal-process rule allows, then writes {@code memory.max}
 * (with {@code memory.high} a tenth below it, so the kernel reclaims before it kills), {@code
 * pids.max} and {@code cpu.max}. Whatever cannot be enforced so is left to the watchdog, and the
 * {@link Enforcement} says exactly why. Stateless; thread-safe.
 */
public final class CgroupCeilings {
  /** {@code cpu.max}'s period: the kernel's default, 100 ms. */
  static final long CPU_PERIOD_MICROS = 100_000;

  /** The kernel refuses quotas below 1 ms. */
  static final long CPU_MIN_QUOTA_MICROS = 1_000;

  private static final Map<Breach.Kind, String> CONTROLLER = new LinkedHashMap<>();

  static {
    CONTROLLER.put(Breach.Kind.MEMORY, "memory");
    CONTROLLER.put(Breach.Kind.PROCESSES, "pids");
    CONTROLLER.put(Breach.Kind.CPU, "cpu");
  }

  private CgroupCeilings() {}

  /**
   * What the kernel could enforce for a tree under {@code parent}, read from the files and changing
   * nothing: a controller counts when the hierarchy offers it to {@code parent} and it is already
   * enabled for {@code parent}'s children, or could be (the parent is the root or holds no
   * process).
   *
   * @param parent where trees' cgroups are created
   * @return every ceiling kind the kernel could take, the rest (and spin) for the watchdog
   */
  public static Enforcement available(Cgroup parent) {
    Set<Breach.Kind> kernel = EnumSet.noneOf(Breach.Kind.class);
    String reason = decide(parent, EnumSet.copyOf(CONTROLLER.keySet()), kernel, false);
    return new Enforcement(kernel, complement(kernel), reason);
  }

  /**
   * Enforces {@code ceilings} for the tree whose cgroup is {@code own} (created under {@code
   * parent}, no process in it yet): enables the controllers it needs and writes its limits.
   *
   * @param parent the parent cgroup
   * @param own the tree's own cgroup
   * @param ceilings the tree's ceilings
   * @return which ceilings the kernel now enforces, which the watchdog judges, and why
   */
  public static Enforcement apply(Cgroup parent, Cgroup own, Ceilings ceilings) {
    Set<Breach.Kind> watchdog = enabledKinds(ceilings);
    Set<Breach.Kind> wanted = EnumSet.copyOf(watchdog); // an EnumSet: copied even when empty
    wanted.remove(Breach.Kind.SPIN); // the kernel has no spin rule
    if (wanted.isEmpty()) {
      return new Enforcement(Set.of(), watchdog, "the spin rule is always the watchdog's");
    }
    Set<Breach.Kind> kernel = EnumSet.noneOf(Breach.Kind.class);
    String reason = decide(parent, wanted, kernel, true);
    List<String> failures = new ArrayList<>();
    for (Breach.Kind kind : EnumSet.copyOf(kernel)) {
      try {
        write(own, kind, ceilings);
      } catch (IOException e) {
        kernel.remove(kind);
        failures.add(Errno.describe(e));
      }
    }
    watchdog.removeAll(kernel);
    if (!failures.isEmpty()) {
      reason = reason + "; " + String.join("; ", failures);
    }
    return new Enforcement(
        kernel, watchdog, kernel.isEmpty() ? reason : "cgroup " + own + ": " + reason);
  }

  /**
   * The ceiling kinds {@code c} enables, spin included.
   *
   * @param c the ceilings
   * @return a new mutable set of the enabled kinds
   */
  public static Set<Breach.Kind> enabledKinds(Ceilings c) {
    Set<Breach.Kind> out = EnumSet.noneOf(Breach.Kind.class);
    if (c.memoryBytes() > 0) {
      out.add(Breach.Kind.MEMORY);
    }
    if (c.processes() > 0) {
      out.add(Breach.Kind.PROCESSES);
    }
    if (c.cpu().isEnabled()) {
      out.add(Breach.Kind.CPU);
    }
    if (c.spin().isEnabled()) {
      out.add(Breach.Kind.SPIN);
    }
    return out;
  }

  /**
   * Fills {@code kernel} with the wanted kinds whose controller is usable under {@code parent};
   * with {@code enable}, writes {@code +controller} to the parent's subtree control as needed.
   *
   * @return the reason, naming what is enforced or exactly why not
   */
  private static String decide(
      Cgroup parent, Set<Breach.Kind> wanted, Set<Breach.Kind> kernel, boolean enable) {
    Path mount = parent.hierarchy().mountPoint();
    Set<String> offered = words(read(parent.hierarchy().root().path(), "cgroup.controllers"));
    Set<String> given = words(read(parent.path(), "cgroup.controllers"));
    Set<String> enabled = words(read(parent.path(), "cgroup.subtree_control"));
    List<String> why = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (Breach.Kind kind : wanted) {
      String controller = CONTROLLER.get(kind);
      if (!offered.contains(controller)) {
        missing.add(controller);
        continue;
      }
      if (!given.contains(controller)) {
        why.add(parent + " is not given the " + controller + " controller by its parent");
        continue;
      }
      if (enabled.contains(controller)) {
        kernel.add(kind);
        continue;
      }
      if (!parent.isRoot() && hasProcesses(parent)) {
        why.add(
            parent
                + " holds processes (the JVM's own cgroup?), so the no-internal-process rule"
                + " forbids enabling "
                + controller
                + " for its children: configure a parent cgroup without processes");
        continue;
      }
      if (!enable) {
        kernel.add(kind);
        continue;
      }
      try {
        Files.write(
            parent.path().resolve("cgroup.subtree_control"), ("+" + controller).getBytes(US_ASCII));
        kernel.add(kind);
      } catch (IOException e) {
        why.add("cannot enable " + controller + " in " + parent + ": " + Errno.describe(e));
      }
    }
    if (!missing.isEmpty()) {
      why.add(
          0,
          "cgroup v2 at "
              + mount
              + (offered.isEmpty()
                  ? " offers no controller"
                  : " offers " + String.join(" ", offered) + " only")
              + " (no "
              + String.join(", ", missing)
              + ")");
    }
    if (why.isEmpty()) {
      return "controllers " + controllers(kernel) + " enabled under " + parent;
    }
    return String.join("; ", why);
  }

  private static void write(Cgroup own, Breach.Kind kind, Ceilings c) throws IOException {
    switch (kind) {
      case MEMORY -> {
        long high = c.memoryBytes() - c.memoryBytes() / 10;
        writeFile(own.path().resolve("memory.high"), Long.toString(Math.max(high, 4096)));
        writeFile(own.path().resolve("memory.max"), Long.toString(c.memoryBytes()));
      }
      case PROCESSES -> writeFile(own.path().resolve("pids.max"), Long.toString(c.processes()));
      case CPU -> {
        long quota =
            Math.max(CPU_MIN_QUOTA_MICROS, Math.round(c.cpu().share() * CPU_PERIOD_MICROS));
        writeFile(own.path().resolve("cpu.max"), quota + " " + CPU_PERIOD_MICROS);
      }
      default -> throw new IllegalArgumentException("no kernel limit for " + kind);
    }
  }

  /**
   * A counter of a flat-keyed file of {@code cgroup}, e.g. {@code oom_kill} of {@code
   * memory.events}.
   *
   * @param cgroup the cgroup
   * @param file e.g. {@code memory.events} or {@code pids.events}
   * @param key e.g. {@code oom_kill} or {@code max}
   * @return the value, or {@code -1} when the file or key is absent or unreadable
   */
  public static long counter(Cgroup cgroup, String file, String key) {
    String text = read(cgroup.path(), file);
    for (String line : text.split("\n")) {
      String[] parts = line.trim().split(" ");
      if (parts.length == 2 && parts[0].equals(key)) {
        try {
          return Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
          return -1;
        }
      }
    }
    return -1;
  }

  /**
   * A cgroup's whole CPU time from {@code cpu.stat usage_usec}, kept by the kernel without any
   * controller enabled, dead members included.
   *
   * @param cgroup the cgroup
   * @return nanoseconds, or {@code -1} when unreadable
   */
  public static long cpuNanos(Cgroup cgroup) {
    long micros = counter(cgroup, "cpu.stat", "usage_usec");
    return micros < 0 ? -1 : micros * 1000;
  }

  private static boolean hasProcesses(Cgroup c) {
    return !read(c.path(), "cgroup.procs").isEmpty();
  }

  private static Set<Breach.Kind> complement(Set<Breach.Kind> kernel) {
    Set<Breach.Kind> out = EnumSet.allOf(Breach.Kind.class);
    out.removeAll(kernel);
    return out;
  }

  private static String controllers(Set<Breach.Kind> kinds) {
    List<String> out = new ArrayList<>();
    for (Breach.Kind k : kinds) {
      out.add(CONTROLLER.get(k));
    }
    return String.join(" ", out);
  }

  private static Set<String> words(String text) {
    Set<String> out = new java.util.LinkedHashSet<>();
    for (String w : text.trim().split("\\s+")) {
      if (!w.isEmpty()) {
        out.add(w.toLowerCase(Locale.ROOT));
      }
    }
    return out;
  }

  private static String read(Path dir, String file) {
    try {
      return Files.readString(dir.resolve(file), US_ASCII);
    } catch (NoSuchFileException e) {
      return "";
    } catch (IOException e) {
      return "";
    }
  }

  private static void writeFile(Path file, String value) throws IOException {
    try {
      Files.write(file, value.getBytes(US_ASCII));
    } catch (IOException e) {
      throw Errno.wrap("write " + value + " to " + file, e);
    }
  }
}
