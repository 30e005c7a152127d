package dev.lifecycle.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An slf4j logger created on its first message, so a path that logs nothing never starts slf4j.
 * Thread-safe.
 *
 * <p>slf4j's first {@link LoggerFactory#getLogger} looks up its provider, which scans the class
 * path: too slow for a short-lived client that only reads or spawns. Lifecycle's client path
 * therefore holds these instead of loggers (docs/ARCHITECTURE.md, "Cold-path rules"; pinned by
 * {@code LazyLoadingTest}). Creating one loads no slf4j class, and the methods mirror the {@link
 * Logger} overloads, so arguments and a trailing {@link Throwable} mean what they mean there.
 * Thread-safe: racing first uses each ask slf4j, which returns the same logger.
 */
public final class LazyLogger {
  private final Class<?> owner;
  private volatile Logger logger;

  private LazyLogger(Class<?> owner) {
    this.owner = owner;
  }

  /**
   * A logger named after {@code owner}, created on first use.
   *
   * @param owner the class whose name the logger takes
   * @return the lazy logger
   */
  public static LazyLogger of(Class<?> owner) {
    return new LazyLogger(owner);
  }

  private Logger logger() {
    Logger created = logger;
    if (created == null) {
      created = LoggerFactory.getLogger(owner);
      logger = created;
    }
    return created;
  }

  /**
   * Logs at error level.
   *
   * @param message the message
   * @param arguments the arguments of its {@code {}} anchors, a throwable last
   */
  public void error(String message, Object... arguments) {
    logger().error(message, arguments);
  }

  /**
   * Logs at warn level.
   *
   * @param message the message
   * @param arguments the arguments of its {@code {}} anchors, a throwable last
   */
  public void warn(String message, Object... arguments) {
    logger().warn(message, arguments);
  }

  /**
   * Logs at info level.
   *
   * @param message the message
   * @param arguments the arguments of its {@code {}} anchors, a throwable last
   */
  public void info(String message, Object... arguments) {
    logger().info(message, arguments);
  }

  /**
   * Logs at debug level.
   *
   * @param message the message
   * @param arguments the arguments of its {@code {}} anchors, a throwable last
   */
  public void debug(String message, Object... arguments) {
    logger().debug(message, arguments);
  }
}
