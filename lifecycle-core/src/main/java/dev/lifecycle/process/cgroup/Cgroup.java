package dev.lifecycle.process.cgroup;

import static java.nio.charset.StandardCharsets.US_ASCII;

import dev.lifecycle.internal.Ascii;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One cgroup v2 directory, by path: create children, move processes in, read members, kill, freeze,
 * wait for it to empty, remove. A handle, not a lock: the directory may be changed or removed by
 * others at any time, and every method reads the kernel's current answer. Thread-safe.
 *
 * <p>Failures are {@link IOException}s naming the file and the errno ({@link Errno#describe}), e.g.
 * {@code "/sys/fs/cgroup/x/cgroup.procs: EACCES (Permission denied)"}.
 */
public final class Cgroup {
  private final CgroupHierarchy hierarchy;
  private final Path path;

  Cgroup(CgroupHierarchy hierarchy, Path path) {
    this.hierarchy = hierarchy;
    this.path = path;
  }

  /**
   * The cgroup at {@code directory}, which may or may not exist. Reads no file when the hierarchy
   * holding it was located before (a tree's spawn names its cgroup by directory).
   *
   * @param directory a directory under the cgroup2 mount, e.g. {@link #path()} of a cgroup
   * @return the cgroup there
   * @throws IllegalArgumentException if no cgroup2 mount holds {@code directory}
   */
  public static Cgroup at(Path directory) {
    Path dir = directory.toAbsolutePath().normalize();
    Optional<CgroupHierarchy> hierarchy = CgroupHierarchy.holding(dir); // no lambda: a spawn's path
    if (hierarchy.isEmpty()) {
      throw new IllegalArgumentException("not a directory of the cgroup2 hierarchy: " + directory);
    }
    return new Cgroup(hierarchy.get(), dir);
  }

  /**
   * The cgroup v2 hierarchy this cgroup belongs to.
   *
   * @return the hierarchy, with its mount point
   */
  public CgroupHierarchy hierarchy() {
    return hierarchy;
  }

  /**
   * The directory, e.g. {@code /sys/fs/cgroup/unified/lifecycle-1234-5678-1}.
   *
   * @return the absolute directory of this cgroup
   */
  public Path path() {
    return path;
  }

  /**
   * The path inside the hierarchy, as {@code /proc/<pid>/cgroup} shows it ({@code /} for root).
   *
   * @return the path relative to the mount point, starting with {@code /}
   */
  public String relativePath() {
    Path rel = hierarchy.mountPoint().relativize(path);
    return "/" + rel.toString();
  }

  /**
   * The last path element ({@code ""} for the root).
   *
   * @return the directory's name
   */
  public String name() {
    return path.equals(hierarchy.mountPoint()) ? "" : path.getFileName().toString();
  }

  /**
   * Whether this cgroup's directory exists now (a removed cgroup does not).
   *
   * @return {@code true} if the directory is there
   */
  public boolean exists() {
    return Files.isDirectory(path);
  }

  /**
   * Whether this is the hierarchy's root (which has no {@code cgroup.kill} or events file).
   *
   * @return {@code true} for the mount point itself
   */
  public boolean isRoot() {
    return path.equals(hierarchy.mountPoint());
  }

  /**
   * The child cgroup {@code name} (not created).
   *
   * @param name one path element, a valid cgroup directory name
   * @return the child, which may or may not exist
   * @throws IllegalArgumentException if {@code name} is not a valid cgroup name
   */
  public Cgroup child(String name) {
    if (name.isEmpty()
        || name.length() > 200
        || !Ascii.isWord(name, 0, "._-")
        || name.equals(".")
        || name.equals("..")) {
      throw new IllegalArgumentException("not a cgroup name: '" + name + "'");
    }
    return new Cgroup(hierarchy, path.resolve(name));
  }

  /**
   * Creates the child cgroup {@code name} (mkdir).
   *
   * @param name one path element, a valid cgroup directory name
   * @return the new child
   * @throws IOException naming the path and errno, e.g. EEXIST, EACCES, EROFS
   */
  public Cgroup createChild(String name) throws IOException {
    Cgroup child = child(name);
    try {
      Files.createDirectory(child.path);
    } catch (IOException e) {
      throw Errno.wrap("mkdir " + child.path, e);
    }
    return child;
  }

  /**
   * Moves process {@code pid} (all its threads) into this cgroup. Needs write access to this {@code
   * cgroup.procs} and to that of the common ancestor of its current cgroup and this one.
   *
   * @param pid the process to move, positive
   * @throws IOException naming the file and errno (ESRCH: gone; EBUSY: controllers forbid processes
   *     here; EACCES/EPERM: not delegated to us)
   */
  public void enter(long pid) throws IOException {
    if (pid <= 0) {
      throw new IllegalArgumentException("not a pid: " + pid);
    }
    write("cgroup.procs", Long.toString(pid));
  }

  /**
   * {@link #enter} for a child started by {@link #enteringCommand}, which moved itself before its
   * program ran: a child that has already exited (ESRCH, also for a zombie) is no failure then.
   *
   * @param pid the child, positive
   * @return {@code false} if it had already exited, {@code true} if it is (now) in this cgroup
   * @throws IOException naming the file and errno for any other failure
   */
  public boolean enterUnlessExited(long pid) throws IOException {
    try {
      enter(pid);
      return true;
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().contains("ESRCH")) {
        return false;
      }
      throw e;
    }
  }

  /**
   * The processes directly in this cgroup (not in its children).
   *
   * @return the pids in this cgroup's {@code cgroup.procs}
   * @throws IOException naming the file and errno when it cannot be read
   */
  public List<Long> processes() throws IOException {
    List<Long> out = new ArrayList<>();
    CgroupReads.processes(path, out);
    return out;
  }

  /**
   * Every process in this cgroup and its descendants (exact: the kernel's membership, O(members)).
   * Zombies that are not yet reaped are not listed by the kernel.
   *
   * @return the pids, in the order the kernel lists them, this cgroup first
   * @throws IOException naming the file and errno when a {@code cgroup.procs} cannot be read
   */
  public Set<Long> members() throws IOException {
    List<Long> out = new ArrayList<>();
    CgroupReads.members(path, out);
    return new LinkedHashSet<>(out);
  }

  /**
   * Child cgroups (one level).
   *
   * @return the child cgroups that exist now
   * @throws IOException naming the directory and errno when it cannot be listed
   */
  public List<Cgroup> children() throws IOException {
    List<Cgroup> out = new ArrayList<>();
    for (Path sub : CgroupReads.subdirectories(path)) {
      out.add(new Cgroup(hierarchy, sub));
    }
    return out;
  }

  /**
   * Whether a process is in this cgroup or below ({@code cgroup.events populated}). A removed
   * cgroup is not populated.
   *
   * @return {@code true} if a process is in this cgroup or below
   * @throws IOException naming the file and errno when {@code cgroup.events} cannot be read
   */
  public boolean isPopulated() throws IOException {
    return CgroupReads.events(path).populated();
  }

  /**
   * Whether this cgroup offers {@code cgroup.kill} (Linux >= 5.14; never the root).
   *
   * @return {@code true} if {@code cgroup.kill} exists here
   */
  public boolean canKill() {
    return Files.exists(path.resolve("cgroup.kill"));
  }

  /**
   * SIGKILLs every process in this cgroup and below, atomically with respect to forks ({@code
   * cgroup.kill}; synchronous, about 40-50 us per process). Returns before they are reaped: wait
   * with {@link #awaitEmpty} or {@link #onEmpty}.
   *
   * @throws IOException naming the file and errno when it cannot be written (e.g. EACCES: not
   *     delegated to us)
   */
  public void kill() throws IOException {
    write("cgroup.kill", "1");
  }

  /**
   * Freezes every process in this cgroup and below ({@code cgroup.freeze 1}); a frozen fork storm
   * cannot fork. SIGKILL still ends frozen processes. Returns without waiting for the freeze to
   * complete ({@link #isFrozen}).
   *
   * @throws IOException naming the file and errno when it cannot be written (e.g. EACCES: not
   *     delegated to us)
   */
  public void freeze() throws IOException {
    write("cgroup.freeze", "1");
  }

  /**
   * Undoes {@link #freeze}.
   *
   * @throws IOException naming the file and errno when it cannot be written (e.g. EACCES: not
   *     delegated to us)
   */
  public void thaw() throws IOException {
    write("cgroup.freeze", "0");
  }

  /**
   * Whether the freeze has completed ({@code cgroup.events frozen 1}).
   *
   * @return {@code true} once every process here and below is frozen
   * @throws IOException naming the file and errno when {@code cgroup.events} cannot be read
   */
  public boolean isFrozen() throws IOException {
    return CgroupReads.events(path).frozen();
  }

  /**
   * Completes when nothing is left in this cgroup or below ({@code populated 0}), observed by
   * inotify on {@code cgroup.events} (one watcher thread for the JVM; no polling). Completes at
   * once when already empty or removed. Never completes exceptionally; cancel it to stop watching.
   *
   * @return a future completed with this cgroup once it is empty
   */
  public CompletableFuture<Cgroup> onEmpty() {
    return CgroupWatcher.get().whenEmpty(this);
  }

  /**
   * Waits up to {@code timeout} for {@code populated 0}.
   *
   * @param timeout the longest to wait; zero or negative checks once
   * @throws InterruptedException if the thread is interrupted while waiting
   * @return whether the cgroup is empty
   */
  public boolean awaitEmpty(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    CompletableFuture<Cgroup> empty = onEmpty();
    try {
      empty.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      empty.cancel(false);
      return false;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      empty.cancel(false);
      throw e;
    }
  }

  /**
   * Removes this cgroup and its (empty) descendants, deepest first. A populated cgroup is not
   * removed (EBUSY).
   *
   * @return whether the cgroup is gone (removed now or before)
   * @throws IOException naming the path and errno when a removal fails for another reason than
   *     being populated
   */
  public boolean remove() throws IOException {
    if (!exists()) {
      return true;
    }
    for (Cgroup sub : children()) {
      if (!sub.remove()) {
        return false;
      }
    }
    try {
      Files.deleteIfExists(path);
      return true;
    } catch (IOException e) {
      IOException wrapped = Errno.wrap("rmdir " + path, e);
      if (wrapped.getMessage().contains("EBUSY")) {
        return false;
      }
      throw wrapped;
    }
  }

  /**
   * The command that starts {@code command} already inside this cgroup: {@code /bin/sh} writes its
   * own pid into {@code cgroup.procs} and then execs {@code command} in place (same pid, same argv,
   * same PATH lookup), so the program runs its first instruction inside and nothing it forks can be
   * born outside. Costs one exec of {@code /bin/sh}. If the write fails the program is not run and
   * the process exits with {@link #ENTRY_FAILED}. The shell sets {@code PWD} on start; the program
   * gets {@code PWD} exactly as {@code environment} has it, or not at all.
   *
   * @param command the program and its arguments
   * @param environment the environment the program is started with
   * @return {@code /bin/sh -c <entry script> <cgroup.procs> <PWD or -> command...}
   */
  public List<String> enteringCommand(List<String> command, Map<String, String> environment) {
    List<String> out = new ArrayList<>(command.size() + 5);
    out.add("/bin/sh");
    out.add("-c");
    out.add(
        "echo $$ >\"$0\" || exit "
            + ENTRY_FAILED
            + "; case $1 in -) unset PWD ;; *) PWD=${1#=}; export PWD ;; esac; shift; exec \"$@\"");
    out.add(path.resolve("cgroup.procs").toString());
    String pwd = environment.get("PWD");
    out.add(pwd == null ? "-" : "=" + pwd);
    out.addAll(command);
    return out;
  }

  /** Exit status of {@link #enteringCommand} when the cgroup could not be entered. */
  public static final int ENTRY_FAILED = 125;

  /**
   * Whether this JVM may create children here and move processes in (access(2) W_OK).
   *
   * @return {@code true} if the directory and its {@code cgroup.procs} are writable by this JVM
   */
  public boolean isWritable() {
    return Files.isWritable(path) && Files.isWritable(path.resolve("cgroup.procs"));
  }

  private void write(String file, String value) throws IOException {
    Path target = path.resolve(file);
    try {
      Files.write(target, value.getBytes(US_ASCII));
    } catch (IOException e) {
      throw Errno.wrap("write " + value + " to " + target, e);
    }
  }

  /** Reads a one-line file of this cgroup ({@code cgroup.subtree_control} and the like). */
  String read(String file) {
    try {
      return Files.readString(path.resolve(file), US_ASCII).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(Errno.wrap("read " + path.resolve(file), e));
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Cgroup that && path.equals(that.path);
  }

  @Override
  public int hashCode() {
    return path.hashCode();
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
