package dev.lifecycle.internal;

import java.util.concurrent.ThreadFactory;

/**
 * The library's threads: every one named (a thread dump says whose it is) and its daemon flag
 * chosen on purpose, never inherited from whichever thread happened to create it. Daemon threads
 * watch and serve; a non-daemon thread is one whose work must finish before the JVM may exit (a
 * shutdown pass, an escalation under way). Stateless and thread-safe.
 */
public final class Threads {
  private Threads() {}

  /**
   * A new, unstarted daemon thread, for a caller that must publish it before it runs.
   *
   * @param name the thread's name
   * @param body what it runs
   * @return the thread, not started
   */
  public static Thread daemon(String name, Runnable body) {
    return create(name, body, true);
  }

  /**
   * Starts {@code body} on a new daemon thread: it never keeps the JVM alive.
   *
   * @param name the thread's name
   * @param body what it runs
   * @return the started thread
   */
  public static Thread startDaemon(String name, Runnable body) {
    Thread thread = daemon(name, body);
    thread.start();
    return thread;
  }

  /**
   * Starts {@code body} on a new non-daemon thread: the JVM does not exit normally before it ends.
   *
   * @param name the thread's name
   * @param body what it runs
   * @return the started thread
   */
  public static Thread startKeepingJvm(String name, Runnable body) {
    Thread thread = create(name, body, false);
    thread.start();
    return thread;
  }

  /**
   * A factory of daemon threads all named {@code name}, for single-thread executors.
   *
   * @param name the threads' name
   * @return the factory
   */
  public static ThreadFactory daemons(String name) {
    return new Daemons(name);
  }

  /** A class, not a lambda: some factories are first used as a short-lived program ends. */
  private static final class Daemons implements ThreadFactory {
    private final String name;

    Daemons(String name) {
      this.name = name;
    }

    @Override
    public Thread newThread(Runnable body) {
      return daemon(name, body);
    }
  }

  /**
   * Registers {@code body} as a JVM shutdown hook on a thread named {@code name}.
   *
   * @param name the hook thread's name
   * @param body what runs at exit
   * @return the registered hook, e.g. for {@link Runtime#removeShutdownHook}
   * @throws IllegalStateException if the JVM is already shutting down
   */
  public static Thread shutdownHook(String name, Runnable body) {
    Thread hook = create(name, body, false);
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }

  private static Thread create(String name, Runnable body, boolean daemon) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(daemon);
    return thread;
  }
}
