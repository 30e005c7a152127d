package dev.lifecycle.posix;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.StringArray;
import dev.lifecycle.process.Signal;
import dev.lifecycle.process.SpawnOptions;
import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One {@code posix_spawn} call configured from a {@link ProcessBuilder}: the child gets a new
 * session (POSIX_SPAWN_SETSID) before it runs an instruction of its own, an empty signal mask and
 * default dispositions for every catchable signal, fds 0-2 as redirected and no other fd, the
 * builder's environment plus the tree cookie, and the builder's directory.
 *
 * <p>Not {@code posix_spawnp}: the program is looked up here, on the PATH of the child's
 * environment ({@code /usr/bin:/bin} when it has none; empty entries mean the child's directory),
 * so the search is explicit and a miss is an {@code ENOENT} without a call. glibc (>= 2.24,
 * CLONE_VFORK) reports failures of the child before exec, including exec itself and {@code chdir},
 * as the return value of {@code posix_spawn} and reaps that child itself; they become {@link
 * IOException}s naming the command, errno and its text.
 *
 * <p>fds beyond 2: {@code addclosefrom_np(3)} (glibc >= 2.34); on macOS
 * POSIX_SPAWN_CLOEXEC_DEFAULT; otherwise an {@code addclose} for every fd listed in {@code
 * /proc/self/fd}, which misses an fd another thread opens without O_CLOEXEC between the listing and
 * the spawn (the JDK's sockets are such fds).
 */
final class Spawner {
  private static final int SIGSET_SIZE = 128; // glibc's sigset_t; macOS needs 4
  private static final int OPAQUE_SIZE = 512; // posix_spawnattr_t: 336 on glibc, a pointer on macOS

  private final NativeFeatures features;

  Spawner(NativeFeatures features) {
    this.features = features;
  }

  /** A started child: its pid and the parent's ends of its stdio. */
  record Spawned(int pid, Stdio stdio) {}

  Spawned spawn(ProcessBuilder builder, SpawnOptions options) throws IOException {
    List<String> command = List.copyOf(builder.command());
    if (command.isEmpty()) {
      throw new IllegalArgumentException("empty command");
    }
    File directory = builder.directory();
    String program = resolve(command, builder.environment(), directory);
    List<String> argv = command;
    java.util.Optional<dev.lifecycle.process.cgroup.Cgroup> cgroup =
        options.cgroup().map(dev.lifecycle.process.cgroup.Cgroup::at);
    if (cgroup.isPresent()) {
      // The program must run its first instruction inside: a daemon forks within a millisecond
      // of its exec, sooner than this thread returns from posix_spawn on a loaded machine.
      requireExecutable(program, command, directory);
      argv = cgroup.get().enteringCommand(command, builder.environment());
      program = resolve(argv, builder.environment(), directory);
    }
    Memory attr = new Memory(OPAQUE_SIZE);
    Memory actions = new Memory(OPAQUE_SIZE);
    check(LibC.posix_spawnattr_init(attr), "posix_spawnattr_init");
    try {
      check(LibC.posix_spawn_file_actions_init(actions), "posix_spawn_file_actions_init");
      try {
        configure(attr, options);
        Stdio stdio = Stdio.plan(builder, actions, features);
        try {
          closeOtherFds(actions);
          changeDirectory(actions, command, directory);
          int[] pid = new int[1];
          int rc =
              LibC.posix_spawn(
                  pid,
                  LibC.cString(program),
                  actions,
                  attr,
                  strings(argv),
                  strings(environment(builder, options)));
          if (rc != 0) {
            throw failure(command, directory, LibC.describe(rc));
          }
          if (cgroup.isPresent()) {
            enterCgroup(pid[0], cgroup.get(), command);
          }
          stdio.closeChildEnds();
          return new Spawned(pid[0], stdio);
        } catch (IOException | RuntimeException e) {
          stdio.close();
          throw e;
        }
      } finally {
        LibC.posix_spawn_file_actions_destroy(actions);
      }
    } finally {
      LibC.posix_spawnattr_destroy(attr);
    }
  }

  /**
   * Also moves the child from here (idempotent with the shell's own move): glibc 2.36 has no
   * posix_spawnattr_setcgroup_np and clone3 cannot run safely in a JVM, so the entering shell is
   * what guarantees the order. A child that has already exited ran inside (the shell moved it
   * first, or exited 125). A live child that cannot be moved is killed and reaped: the caller asked
   * for containment.
   */
  private void enterCgroup(
      int pid, dev.lifecycle.process.cgroup.Cgroup cgroup, List<String> command)
      throws IOException {
    // The shell may have moved itself already: a write would take the kernel's global
    // cgroup_threadgroup_rwsem for writing (it waits for every fork in flight) for nothing.
    java.util.Optional<dev.lifecycle.process.cgroup.Cgroup> now = cgroup.hierarchy().of(pid);
    if (now.isPresent() && now.get().equals(cgroup)) {
      return;
    }
    try {
      cgroup.enterUnlessExited(pid);
    } catch (IOException e) {
      LibC.kill(pid, features.os().signal(Signal.KILL));
      Memory info = new Memory(OsConstants.SIGINFO_SIZE);
      while (LibC.waitid(OsConstants.P_PID, pid, info, OsConstants.WEXITED) != 0
          && LibC.errno() == OsConstants.EINTR) {
        // retry; SIGKILL ends it promptly
      }
      throw new dev.lifecycle.process.cgroup.CgroupEntryException(
          "cannot move " + command + " into its cgroup: " + e.getMessage(), e);
    }
  }

  private void configure(Pointer attr, SpawnOptions options) throws IOException {
    OsConstants os = features.os();
    short flags = (short) (OsConstants.POSIX_SPAWN_SETSIGMASK | OsConstants.POSIX_SPAWN_SETSIGDEF);
    flags |= os.spawnCloexecDefault;
    if (options.newSession()) {
      if (!features.spawnSetsid()) {
        throw new IOException("this libc has no POSIX_SPAWN_SETSID (glibc >= 2.26 needed)");
      }
      flags |= os.spawnSetsid;
    }
    check(LibC.posix_spawnattr_setflags(attr, flags), "posix_spawnattr_setflags");
    Memory empty = new Memory(SIGSET_SIZE);
    LibC.sigemptyset(empty);
    check(LibC.posix_spawnattr_setsigmask(attr, empty), "posix_spawnattr_setsigmask");
    check(LibC.posix_spawnattr_setsigdefault(attr, catchable(os)), "posix_spawnattr_setsigdefault");
  }

  /**
   * Every catchable signal, to be reset to its default (ignored ones stay ignored across exec). On
   * Linux the set is built by hand: glibc's sigfillset leaves out its internal signals 32 and 33,
   * and its posix_spawn then sets exactly those to SIG_IGN in the child, which the program would
   * inherit.
   */
  private static Memory catchable(OsConstants os) {
    Memory set = new Memory(SIGSET_SIZE);
    set.clear();
    if (os.isLinux()) {
      long kill = 1L << (os.signal(Signal.KILL) - 1);
      long stop = 1L << (os.signal(Signal.STOP) - 1);
      set.setLong(0, ~(kill | stop)); // bit n-1 is signal n, for signals 1..64
    } else {
      LibC.sigfillset(set);
      LibC.sigdelset(set, os.signal(Signal.KILL));
      LibC.sigdelset(set, os.signal(Signal.STOP));
    }
    return set;
  }

  private void closeOtherFds(Pointer actions) throws IOException {
    if (features.addclosefrom()) {
      check(
          OptionalLibC.CloseFrom.posix_spawn_file_actions_addclosefrom_np(actions, 3),
          "addclosefrom_np 3");
    } else if (features.os().spawnCloexecDefault == 0) {
      try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
        for (Path fd : fds) {
          int number = Integer.parseInt(fd.getFileName().toString());
          if (number > 2) {
            check(LibC.posix_spawn_file_actions_addclose(actions, number), "addclose " + number);
          }
        }
      }
    }
  }

  private void changeDirectory(Pointer actions, List<String> command, File directory)
      throws IOException {
    if (directory == null) {
      return;
    }
    if (!features.addchdir()) {
      throw failure(
          command,
          directory,
          "a working directory needs posix_spawn_file_actions_addchdir_np (glibc >= 2.29)");
    }
    byte[] path = LibC.cString(directory.getPath());
    check(OptionalLibC.Chdir.posix_spawn_file_actions_addchdir_np(actions, path), "addchdir_np");
  }

  private static List<String> environment(ProcessBuilder builder, SpawnOptions options) {
    Map<String, String> env = builder.environment();
    List<String> entries = new ArrayList<>(env.size() + 1);
    env.forEach(
        (name, value) -> {
          if (!name.equals(SpawnOptions.COOKIE_VARIABLE)) {
            entries.add(name + "=" + value);
          }
        });
    entries.add(SpawnOptions.COOKIE_VARIABLE + "=" + options.treeCookie());
    return entries;
  }

  private static Pointer strings(List<String> values) {
    return new StringArray(values.toArray(String[]::new), LibC.JNU.name());
  }

  /** The path to exec: as given when it contains a slash, else the first executable on PATH. */
  private static String resolve(List<String> command, Map<String, String> env, File directory)
      throws IOException {
    String program = command.get(0);
    if (program.contains("/")) {
      return program;
    }
    boolean denied = false;
    String searchPath = env.getOrDefault("PATH", "/usr/bin:/bin");
    for (String entry : searchPath.split(":", -1)) {
      Path candidate = Path.of(entry.isEmpty() ? "." : entry, program);
      if (!candidate.isAbsolute() && directory != null) {
        candidate = directory.toPath().resolve(candidate);
      }
      if (Files.isRegularFile(candidate)) {
        if (Files.isExecutable(candidate)) {
          return candidate.toString();
        }
        denied = true;
      }
    }
    int errno = denied ? OsConstants.EACCES : OsConstants.ENOENT;
    throw failure(command, directory, LibC.describe(errno) + " (searched PATH=" + searchPath + ")");
  }

  /**
   * Behind the {@code /bin/sh} that enters the cgroup, a missing program would become exit status
   * 127; check it here so the spawn fails with the errno, as it does without a cgroup.
   */
  private static void requireExecutable(String program, List<String> command, File directory)
      throws IOException {
    Path path = Path.of(program);
    if (!path.isAbsolute() && directory != null) {
      path = directory.toPath().resolve(path);
    }
    if (!Files.exists(path)) {
      throw failure(command, directory, LibC.describe(OsConstants.ENOENT));
    }
    if (Files.isDirectory(path) || !Files.isExecutable(path)) {
      throw failure(command, directory, LibC.describe(OsConstants.EACCES));
    }
  }

  private static IOException failure(List<String> command, File directory, String reason) {
    return new IOException(
        "Cannot run program \""
            + command.get(0)
            + "\""
            + (directory == null ? "" : " (in directory \"" + directory + "\")")
            + ": "
            + reason
            + "; command: "
            + command);
  }

  private static void check(int rc, String what) throws IOException {
    if (rc != 0) {
      throw new IOException(what + ": " + LibC.describe(rc));
    }
  }
}
