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
   * Starts {@code body} on a new daemon thread: it never keeps the JVM alive.
   *
   * @param name the thread's name
   * @param body what it runs
   * @return the started thread
   */
  public static Thread startDaemon(String name, Runnable body) {
    return start(name, body, true);
  }

  /**
   * Starts {@code body} on a new non-daemon thread: the JVM does not exit normally before it ends.
   *
   * @param name the thread's name
   * @param body what it runs
   * @return the started thread
   */
  public static Thread startKeepingJvm(String name, Runnable body) {
    return start(name, body, false);
  }

  /**
   * A factory of daemon threads all named {@code name}, for single-thread executors.
   *
   * @param name the threads' name
   * @return the factory
   */
  public static ThreadFactory daemons(String name) {
    return body -> {
      Thread thread = new Thread(body, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  private static Thread start(String name, Runnable body, boolean daemon) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(daemon);
    thread.start();
    return thread;
  }
}
