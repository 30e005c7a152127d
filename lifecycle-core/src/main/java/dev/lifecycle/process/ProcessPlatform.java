package dev.lifecycle.process;

import java.io.IOException;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The operating system as the library needs it: spawn into a new session, identify, probe and
 * signal processes, and read the process table. Everything above this interface (trees,
 * termination, records, brokers, the test kit) programs against it. Implementations are
 * thread-safe.
 *
 * <p>Implementations: the JNA one in {@code lifecycle-posix} (exact, recommended) and a pure-JDK
 * fallback with weaker guarantees ({@link #jdk()}); {@link #capabilities()} says which hold. All
 * methods are thread-safe. Pid and group arguments pass the signal guards (pid and group {@code <=
 * 1}, the JVM's own group: {@link UnsafeSignalException}) before any system call; probes reject
 * invalid pids without one.
 *
 * <p>For users this is the injection point: {@link #get()} gives the platform, and the builders of
 * trees, brokers, clients, workers, tethers and self-termination take one ({@code platform(...)}),
 * so code and tests choose which platform they run on. Implementing it is supported only for
 * lifecycle's own platforms and for a wrapper that delegates every call to one of them (e.g. to
 * inject faults in a test); any other implementation is unsupported, and methods may be added to
 * this interface in any release.
 */
public interface ProcessPlatform {

  /**
   * The {@link #identityClock()} of identities read from Linux {@code /proc}: clock ticks since
   * boot ({@code /proc/<pid>/stat} field 22), within the boot named by the identity's boot id.
   */
  String LINUX_PROC_CLOCK = "linux-proc";

  /**
   * The best implementation available: the highest-priority supported {@link
   * ProcessPlatformProvider} (lifecycle-posix's, loaded by its class name, or else those {@link
   * java.util.ServiceLoader} finds), else {@link #jdk()}, with a warning that names the reason.
   * Chosen once per JVM, and loaded on first need: on Linux, identities, probes and the process
   * table are read from {@code /proc} (as every built-in platform reads them there) until a spawn,
   * a signal or {@link #capabilities()} needs the platform itself, so a client that only reads
   * records and probes owners loads no native code.
   *
   * <p>The system property {@code lifecycle.platform} (or the environment variable {@code
   * LIFECYCLE_PLATFORM}) selects: {@code auto} (default), {@code native} (a native provider or an
   * {@link IllegalStateException} from this method: fail fast instead of running with weaker
   * guarantees; the platform is then loaded at once), {@code jdk} (the fallback on purpose, no
   * warning).
   *
   * @return the selected platform, the same instance for the life of the JVM
   * @throws IllegalStateException under {@code lifecycle.platform=native} when no native platform
   *     is usable, with the reason
   */
  static ProcessPlatform get() {
    return PlatformLoader.best();
  }

  /**
   * The pure-JDK fallback, always available.
   *
   * @return the fallback platform, which needs no native code
   */
  static ProcessPlatform jdk() {
    return PlatformLoader.jdk();
  }

  /**
   * What this implementation guarantees on this machine.
   *
   * @return what this platform can do on this machine
   */
  Capabilities capabilities();

  /**
   * The name of the clock {@link ProcessIdentity#startTime()} is measured in here: identities
   * recorded under one clock may be compared by start time only with identities of the same clock
   * (e.g. a session record written by another process). On Linux every built-in platform reads
   * {@code /proc} and answers {@code "linux-proc"}. Defaults to {@link Capabilities#platform()}.
   *
   * @return the clock's name, e.g. {@code linux-proc}
   */
  default String identityClock() {
    return capabilities().platform();
  }

  /**
   * Starts {@code builder}'s command as configured (command, environment, directory, redirects,
   * {@code redirectErrorStream}) under {@code options}. Only file descriptors 0-2 reach the child;
   * its signal mask is empty and its dispositions are default.
   *
   * @param builder the command, environment, directory and redirects
   * @param options session, exit holding and tree cookie of the child
   * @return the started process
   * @throws IOException when the program cannot be started, with errno and command in the message
   */
  SupervisedProcess spawn(ProcessBuilder builder, SpawnOptions options) throws IOException;

  /**
   * {@link #spawn(ProcessBuilder, SpawnOptions)} with {@link SpawnOptions#defaults()}.
   *
   * @param builder the command, environment, directory and redirects
   * @return the started process
   * @throws IOException when the program cannot be started
   */
  default SupervisedProcess spawn(ProcessBuilder builder) throws IOException {
    return spawn(builder, SpawnOptions.defaults());
  }

  /**
   * The identity of this JVM.
   *
   * @return pid, start time and boot id of the current process
   */
  ProcessIdentity self();

  /**
   * The process group of this JVM.
   *
   * @return the JVM's pgid, which group signals never target
   */
  long selfProcessGroup();

  /**
   * The identity of the process now at {@code pid}, if there is one (zombies included).
   *
   * @param pid the process id
   * @return its identity, or empty when no process has that pid (or it cannot be read)
   */
  Optional<ProcessIdentity> identify(long pid);

  /**
   * Probes a pid without identity: {@link Liveness#ALIVE} when it exists and may be signalled,
   * {@link Liveness#ALIVE_NOT_OURS} on EPERM, {@link Liveness#GONE} on ESRCH or zombie.
   *
   * @param pid the process id, positive
   * @return {@link Liveness#ALIVE}, {@link Liveness#ALIVE_NOT_OURS} or {@link Liveness#GONE}, as
   *     above
   * @throws IllegalArgumentException for pids {@code <= 0} (no system call is made)
   */
  Liveness probe(long pid);

  /**
   * Probes a recorded process: like {@link #probe(long)}, and {@link Liveness#ALIVE_NOT_OURS} when
   * the pid now belongs to a different process. An unknown identity part never reads as different.
   *
   * @param identity the recorded pid, start time and boot id
   * @return whether that very process is alive, gone, or not ours to signal
   */
  default Liveness probe(ProcessIdentity identity) {
    Liveness liveness = probe(identity.pid());
    if (liveness == Liveness.GONE) {
      return liveness;
    }
    Optional<ProcessIdentity> now = identify(identity.pid());
    if (now.isEmpty()) {
      return probe(identity.pid()); // exited meanwhile, or /proc hides it (hidepid): ask again
    }
    return identity.match(now.get()) == ProcessIdentity.Match.DIFFERENT
        ? Liveness.ALIVE_NOT_OURS
        : liveness;
  }

  /**
   * Signals one process after checking that it still is {@code identity}.
   *
   * @param identity the process to signal, as recorded
   * @param signal the signal
   * @return whether it was sent, or why not (gone, identity differs, not permitted)
   */
  SignalResult signal(ProcessIdentity identity, Signal signal);

  /**
   * Signals every member of a process group (killpg).
   *
   * @param pgid the process group id, above 1 and not the JVM's
   * @param signal the signal
   * @return whether it was sent, or why not
   * @throws UnsafeSignalException for groups {@code <= 1} or the JVM's own group
   * @throws UnsupportedOperationException when {@link Capabilities#groupSignals()} is false
   */
  SignalResult signalGroup(long pgid, Signal signal);

  /**
   * Reads the whole process table in one pass.
   *
   * @return the processes visible now, read in one pass
   */
  ProcessTable snapshot();

  /**
   * Pids of processes whose environment holds {@code name=value} (escapee sweeps).
   *
   * @param name the environment variable's name
   * @param value its exact value
   * @return the pids found; processes whose environment cannot be read are not included
   */
  Set<Long> findByEnvironment(String name, String value);

  /**
   * {@link #findByEnvironment(String, String)} among {@code candidates} only: platforms that read
   * one environment at a time skip every other process.
   *
   * @param name the environment variable's name
   * @param value its exact value
   * @param candidates the only pids to look at
   * @return the candidates whose environment holds {@code name=value}
   */
  default Set<Long> findByEnvironment(String name, String value, Collection<Long> candidates) {
    Set<Long> found = new HashSet<>(findByEnvironment(name, value));
    found.retainAll(new HashSet<>(candidates));
    return found;
  }

  /**
   * Reaps {@code zombie} when it is an exited process that the kernel re-parented to this JVM (the
   * JVM runs as PID 1 of its namespace, or is a subreaper): nothing else would ever collect it. By
   * pid only ({@code waitid(P_PID)} with {@code WNOHANG}, never {@code waitpid(-1)}), and only when
   * the pid is a zombie whose parent is this JVM, whose identity is {@code zombie}'s exactly, and
   * which is not a child this platform spawned (its own process reaps it). Callers pass only
   * processes they know the JVM did not fork itself (members of a tree), so no exit status the JDK
   * waits for is taken. Platforms that cannot reap answer {@code false}.
   *
   * @param zombie the exited process to collect, by exact identity
   * @return whether this call reaped the zombie
   */
  default boolean reapAdopted(ProcessIdentity zombie) {
    return false;
  }

  /**
   * One process's row of the process table (state, parentage, group, session, start time, CPU time,
   * command), zombies included. The default reads a whole {@link #snapshot()}; platforms that can
   * read one process at a time override it.
   *
   * @param pid the process id, positive
   * @return the row, or empty when there is no such process (or it cannot be read)
   * @throws IllegalArgumentException if {@code pid} is not positive
   */
  default Optional<ProcessInfo> info(long pid) {
    if (pid <= 0) {
      throw new IllegalArgumentException("pid must be positive: " + pid);
    }
    return snapshot().get(pid);
  }

  /**
   * The pids that exist now, cheaper than a {@link #snapshot()} where the platform can list them
   * without reading each process (incremental samplers list, then read only the new ones).
   *
   * @return the pids, in no particular order
   */
  default List<Long> pids() {
    return snapshot().all().stream().map(ProcessInfo::pid).toList();
  }

  /**
   * What the environment area of {@code pid} says about the entry {@code name=value}. The default
   * can only answer {@link EnvironmentEntry#PRESENT} or {@link EnvironmentEntry#ABSENT}, from
   * {@link #findByEnvironment(String, String, Collection)}; platforms that read the area itself
   * (Linux {@code /proc}) tell an empty, rewritten or unreadable area apart.
   *
   * @param pid the process id
   * @param name the variable's name
   * @param value its exact value
   * @return whether the entry is there, proven absent, or why neither can be said
   */
  default EnvironmentEntry environmentEntry(long pid, String name, String value) {
    return findByEnvironment(name, value, List.of(pid)).isEmpty()
        ? EnvironmentEntry.ABSENT
        : EnvironmentEntry.PRESENT;
  }

  /**
   * The value of the variable {@code name} in the environment of {@code pid}, if it can be read.
   * The default reads none.
   *
   * @param pid the process id
   * @param name the variable's name
   * @return its value, or empty when it is not set, the area is unreadable or the process is gone
   */
  default Optional<String> environmentValue(long pid, String name) {
    return Optional.empty();
  }

  /** What a process's environment area says about one {@code name=value} entry. */
  enum EnvironmentEntry {
    /** The entry is there. */
    PRESENT,
    /**
     * The area holds {@code KEY=VALUE} entries and this one is not among them: proof of absence (an
     * environment is inherited at fork or replaced by exec, never edited in place by libc).
     */
    ABSENT,
    /** The area is empty for good: {@code env -i}, or a kernel thread. */
    EMPTY,
    /**
     * The process is inside execve: its new environment is not laid out yet, so no answer can be
     * given now; ask again.
     */
    INSIDE_EXEC,
    /**
     * The area holds something other than {@code KEY=VALUE} entries: the process overwrote it, for
     * a process title (redis, nginx, postgres, setproctitle). Not proof of anything.
     */
    REWRITTEN,
    /**
     * The area cannot be read (another user's process without privilege) or the process is gone.
     */
    UNREADABLE
  }

  /**
   * The full command line of a process, if it can be read.
   *
   * @param pid the process id
   * @return the arguments, the program first, or empty when the process is gone or unreadable
   */
  Optional<List<String>> commandLine(long pid);
}
