package dev.lifecycle.tether;

import dev.lifecycle.internal.Durations;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.internal.Setting;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.SpawnOptions;
import dev.lifecycle.time.Limit;
import dev.lifecycle.tree.ProcessTree;
import dev.lifecycle.tree.TreeOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A parent-death tether: process trees bound to it are ended when this JVM dies, by any means,
 * SIGKILL and OOM-kill included, within the grace plus a short scan. Thread-safe: trees may be
 * bound, spawned and unbound from any thread.
 *
 * <pre>{@code
 * try (ProcessTree tree = Tether.spawnTree(new ProcessBuilder("my-server", "--stdio"))) {
 *   // bound before its leader started: if this JVM dies now, even by SIGKILL, the tree ends too
 *   tree.leader().waitFor();
 * } // close() ends whatever is left of the tree and unbinds it
 * }</pre>
 *
 * <p>A tether is a sidecar process: a POSIX {@code sh} script (run as {@code sh -c} text, never a
 * file) in a session of its own, blocked in {@code read} on a pipe whose only write end this JVM
 * holds. Binding a tree writes one line to the pipe ({@code add <pgid> <leader pid> <leader start
 * ticks> <cookie>}); unbinding writes {@code remove <cookie>}. When the pipe reaches end-of-file,
 * which the kernel guarantees once every process holding the write end is gone, the sidecar ends
 * every bound tree: SIGTERM and SIGCONT to its group and to every process carrying its cookie
 * (escapees included), up to the grace, then SIGKILL; then it exits. A tree with a cgroup (CGROUP
 * tier) is ended by TERM to its cgroup's members, the grace, then {@code cgroup.kill}, and its
 * cgroup is removed; no process-table walk. It signals a group only when it proves the group is the
 * tree's (the leader with the recorded start time, or a member carrying the cookie), re-checks a
 * carrier's start time just before signalling it, and never signals pid or pgid {@code <= 1},
 * itself, this JVM or its own group. While this JVM lives the sidecar costs one blocked process
 * (about 1 MB) and no wakeups.
 *
 * <p>{@link #close()} is orderly: the sidecar leaves without ending anything (bound trees stay the
 * caller's business); {@link #closeAndKill()} ends them first. A normal JVM exit without {@code
 * close()} counts as the supervisor dying: bound trees are ended. SIGTERM to the sidecar (e.g. when
 * this JVM ends its own tree) ends the bound trees too.
 *
 * <p>Guarantees hold on Linux with {@code /proc} (tested). Without {@code /proc} (macOS) the
 * sidecar falls back to {@code ps}: cookies are found with {@code ps -E}, and start times are not
 * compared, so only cookie carriers prove a group (untested). The pipe closes only when every
 * holder of its write end is gone: the JDK and this library close inherited descriptors in
 * children, but native code that forks without closing descriptors would keep the sidecar waiting
 * until that child exits too. See {@code docs/TETHER.md} for alternatives considered.
 *
 * <p>Configuration: the grace is the builder's value when one is set, else the system property
 * {@value #GRACE_PROPERTY}, else the environment variable {@value #GRACE_ENV}, else {@link
 * #DEFAULT_GRACE} (the precedence of every lifecycle setting; {@link Limit#parse} grammar, 0 =
 * SIGKILL at once; an unusable value is logged and the next source down is used).
 */
public final class Tether implements AutoCloseable {
  /** System property that overrides the grace. */
  public static final String GRACE_PROPERTY = "lifecycle.tether.grace";

  /** Environment variable that overrides the grace when the property is unset. */
  public static final String GRACE_ENV = "LIFECYCLE_TETHER_GRACE";

  /** 5 seconds from SIGTERM to SIGKILL, as for any tree. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);

  private static final Setting<Duration> GRACE =
      Setting.duration(GRACE_PROPERTY, GRACE_ENV, DEFAULT_GRACE);

  private static final LazyLogger LOG = LazyLogger.of(Tether.class);
  private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(5);
  private static final Object SHARED_LOCK = new Object();
  private static Tether shared;

  private final ProcessPlatform platform;
  private final Sidecar sidecar;
  private final Duration grace;
  private final AtomicBoolean closed = new AtomicBoolean();

  private Tether(ProcessPlatform platform, Sidecar sidecar, Duration grace) {
    this.platform = platform;
    this.sidecar = sidecar;
    this.grace = grace;
  }

  /**
   * The JVM-wide tether, started on first use (and again if it was closed or its sidecar died). It
   * is meant to live as long as the JVM: closing it is allowed but unbinds everything at once.
   *
   * @return the running shared tether
   * @throws UncheckedIOException if the sidecar cannot be started
   */
  public static Tether shared() {
    synchronized (SHARED_LOCK) {
      if (shared == null || !shared.isActive()) {
        try {
          shared = builder().start();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      return shared;
    }
  }

  /**
   * The sidecar of the JVM-wide tether when {@link #shared()} has started one that is still active,
   * else empty; never starts one. The sidecar lives as long as the JVM, so tools that hunt leaked
   * processes (the test kit) must not count it as the leak of whatever first used it.
   *
   * @return the shared tether's sidecar, or empty when no shared tether is active
   */
  public static Optional<ProcessIdentity> sharedSidecar() {
    synchronized (SHARED_LOCK) {
      return shared != null && shared.isActive() ? Optional.of(shared.sidecar()) : Optional.empty();
    }
  }

  /**
   * Starts a tether of its own with the default settings.
   *
   * @return a running tether; the caller closes it
   * @throws IOException as {@link Builder#start()}
   */
  public static Tether start() throws IOException {
    return builder().start();
  }

  /**
   * Spawns {@code builder}'s command as a tree bound to the {@link #shared()} tether before its
   * leader starts: if this JVM dies at any moment, even by SIGKILL, the tree is ended too. The
   * short and safe path; {@link ProcessTree#close()} ends the tree, so use it in a
   * try-with-resources block:
   *
   * <pre>{@code
   * try (ProcessTree tree = Tether.spawnTree(new ProcessBuilder("my-server", "--stdio"))) {
   *   Process leader = tree.leader();
   *   // ...
   * }
   * }</pre>
   *
   * @param builder the leader's command, directory, environment and redirects
   * @return the running, bound tree
   * @throws IOException when the program cannot be started or the sidecar cannot be started or is
   *     gone (nothing is left running then)
   */
  public static ProcessTree spawnTree(ProcessBuilder builder) throws IOException {
    return spawnTree(builder, TreeOptions.defaults());
  }

  /**
   * {@link #spawnTree(ProcessBuilder)} with {@code options}.
   *
   * @param builder the leader's command, directory, environment and redirects
   * @param options grace and containment of the tree
   * @return the running, bound tree
   * @throws IOException when the program cannot be started or the sidecar cannot be started or is
   *     gone (nothing is left running then)
   */
  public static ProcessTree spawnTree(ProcessBuilder builder, TreeOptions options)
      throws IOException {
    Tether tether;
    try {
      tether = shared();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return tether.spawn(builder, options).tree();
  }

  /**
   * A builder for a tether of its own.
   *
   * @return a new builder with the default grace and platform
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds {@code tree}: it is ended if this JVM dies before the binding is closed. The binding
   * closes by itself once the whole tree is gone.
   *
   * @param tree a running tree
   * @return the binding; close it to unbind
   * @throws UncheckedIOException if the sidecar is gone (the tree is then not protected)
   */
  public Binding bind(ProcessTree tree) {
    ProcessIdentity leader = tree.leaderIdentity();
    Binding binding = bind(tree.processGroupId(), leader, tree.cookie(), tree.cgroup());
    tree.onExit().thenRun(binding::close);
    return binding;
  }

  /**
   * A tree spawned already bound: the sidecar is running before the spawn, and the tree is
   * registered (by cookie, and in the CGROUP tier by its cgroup, which the sidecar then ends with
   * {@code cgroup.kill}) before the leader starts. A JVM killed at any moment of the spawn
   * therefore cannot leave the tree unowned. The binding closes by itself once the tree is gone.
   *
   * @param tree the running tree
   * @param binding its binding (close it to let the tree outlive this JVM)
   */
  public record BoundTree(ProcessTree tree, Binding binding) {}

  /**
   * Spawns {@code builder}'s command as a tree bound to this tether before it starts (see {@link
   * BoundTree}), on {@link ProcessPlatform#get()}.
   *
   * @param builder the leader's command, directory, environment and redirects
   * @param options grace and containment of the tree
   * @return the running tree and its binding
   * @throws IOException when the program cannot be started or the sidecar is gone (nothing is left
   *     running then)
   */
  public BoundTree spawn(ProcessBuilder builder, TreeOptions options) throws IOException {
    return spawn(ProcessPlatform.get(), builder, options);
  }

  /**
   * {@link #spawn(ProcessBuilder, TreeOptions)} on {@code platform}.
   *
   * @param platform spawns, reads and signals the tree's processes
   * @param builder the leader's command, directory, environment and redirects
   * @param options grace and containment of the tree
   * @return the running tree and its binding
   * @throws IOException when the program cannot be started or the sidecar is gone (nothing is left
   *     running then)
   */
  public BoundTree spawn(ProcessPlatform platform, ProcessBuilder builder, TreeOptions options)
      throws IOException {
    if (!isActive()) {
      throw new IOException("tether sidecar " + sidecar.pid() + " is not running");
    }
    String[] cookie = new String[1];
    ProcessTree tree =
        ProcessTree.spawn(
            platform,
            builder,
            options,
            placement -> {
              cookie[0] = placement.cookie();
              // Registered before the leader exists: by cookie and cgroup alone.
              send(SidecarLines.add("-", "-", "-", placement.cookie(), placement.cgroup()));
            });
    Binding binding;
    try {
      // Now with the leader and group too, so the group can be proven and signalled.
      binding = bind(tree.processGroupId(), tree.leaderIdentity(), cookie[0], tree.cgroup());
    } catch (RuntimeException e) {
      tree.terminate(Duration.ZERO);
      throw new IOException("tether sidecar gone while binding " + tree + "; ended it", e);
    }
    tree.onExit().thenRun(binding::close);
    return new BoundTree(tree, binding);
  }

  /**
   * Binds a tree given by its parts: {@code pgid} ({@code <= 0} when it has no group of its own),
   * its leader and its cookie (the {@link SpawnOptions#COOKIE_VARIABLE} its processes carry).
   *
   * @param pgid the tree's process group, or {@code <= 0} for none
   * @param leader the tree leader's identity
   * @param cookie 8-64 of [A-Za-z0-9._-]
   * @return the binding; close it to unbind
   * @throws IllegalArgumentException if {@code cookie} is not a valid cookie
   * @throws UncheckedIOException if the sidecar is gone
   */
  public Binding bind(long pgid, ProcessIdentity leader, String cookie) {
    return bind(pgid, leader, cookie, Optional.empty());
  }

  private Binding bind(long pgid, ProcessIdentity leader, String cookie, Optional<Path> cgroup) {
    Objects.requireNonNull(leader, "leader");
    if (!SidecarLines.isCookie(Objects.requireNonNull(cookie, "cookie"))) {
      throw new IllegalArgumentException("cookie must be 8-64 of [A-Za-z0-9._-]: " + cookie);
    }
    send(
        SidecarLines.add(
            pgid > 1 ? Long.toString(pgid) : "-",
            Long.toString(leader.pid()),
            SidecarLines.startTicks(platform, leader),
            cookie,
            cgroup));
    return new Binding(cookie);
  }

  /**
   * The sidecar process.
   *
   * @return the sidecar's identity, e.g. to check it from outside
   */
  public ProcessIdentity sidecar() {
    return sidecar.identity();
  }

  /**
   * The SIGTERM-to-SIGKILL grace the sidecar gives bound trees when this JVM dies.
   *
   * @return the grace in effect, after configuration overrides
   */
  public Duration grace() {
    return grace;
  }

  /**
   * Whether the tether is open and its sidecar running.
   *
   * @return {@code false} once closed or once the sidecar exited
   */
  public boolean isActive() {
    return !closed.get() && sidecar.isAlive();
  }

  /** Orderly close: the sidecar exits without ending any bound tree. Idempotent. */
  @Override
  public void close() {
    shutdown(SidecarLines.EXIT, EXIT_TIMEOUT);
  }

  /** Ends every bound tree now (TERM, grace, KILL) and closes; returns when the sidecar is done. */
  public void closeAndKill() {
    shutdown(SidecarLines.KILL, grace.plus(EXIT_TIMEOUT));
  }

  private void shutdown(String command, Duration wait) {
    if (closed.compareAndSet(false, true)) {
      sidecar.stop(command, wait);
    }
  }

  private void send(String line) {
    if (closed.get()) {
      throw new IllegalStateException("tether is closed");
    }
    try {
      sidecar.write(line);
    } catch (IOException e) {
      throw new UncheckedIOException("tether sidecar " + sidecar.pid() + " is gone", e);
    }
  }

  @Override
  public String toString() {
    return "Tether[sidecar=" + sidecar.pid() + ", grace=" + grace + "]";
  }

  /** A bound tree; closing it unbinds the tree (it is then not ended when the JVM dies). */
  public final class Binding implements AutoCloseable {
    private final String cookie;
    private final AtomicBoolean open = new AtomicBoolean(true);

    private Binding(String cookie) {
      this.cookie = cookie;
    }

    /**
     * Whether this binding still protects its tree: not closed, and the tether still active.
     *
     * @return {@code true} if the tree is ended when this JVM dies
     */
    public boolean isBound() {
      return open.get() && isActive();
    }

    /** Unbinds. Idempotent; a no-op once the tether is closed. */
    @Override
    public void close() {
      if (open.compareAndSet(true, false) && !closed.get()) {
        try {
          sidecar.write(SidecarLines.remove(cookie));
        } catch (IOException e) {
          LOG.debug("tether sidecar {} gone while unbinding", sidecar.pid(), e);
        }
      }
    }
  }

  /** Builds and starts a {@link Tether}. */
  public static final class Builder {
    private Optional<Duration> grace = Optional.empty();
    private ProcessPlatform platform;

    private Builder() {}

    /**
     * SIGTERM-to-SIGKILL grace for bound trees; without it, the configured grace or 5 s.
     *
     * @param value the grace, not negative; zero sends SIGKILL at once
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public Builder grace(Duration value) {
      grace = Optional.of(Durations.nonNegative(value, "grace"));
      return this;
    }

    /**
     * Default {@link ProcessPlatform#get()}.
     *
     * @param value the platform that spawns the sidecar
     * @return this builder
     */
    public Builder platform(ProcessPlatform value) {
      platform = Objects.requireNonNull(value, "platform");
      return this;
    }

    /**
     * Starts the script as {@code sh -c} text (no file is written), starts the sidecar in a session
     * of its own and waits for it to report ready.
     *
     * @return the running tether; the caller closes it
     * @throws IOException if it cannot be started or does not report ready within 10 s
     */
    public Tether start() throws IOException {
      dev.lifecycle.internal.PlatformRequirements.requirePosix("Tether");
      ProcessPlatform p = platform != null ? platform : ProcessPlatform.get();
      Duration effective = GRACE.resolve(grace);
      return new Tether(p, Sidecar.start(p, effective), effective);
    }
  }
}
