package dev.lifecycle.record;

import java.io.IOException;

/**
 * A record directory was refused because another user could read, replace or redirect the records
 * in it. The message says what is wrong and how to fix it. Like any exception, safe to read from
 * any thread once thrown.
 */
public final class UnsafeStoreException extends IOException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what is wrong with the directory and how to fix it
   */
  UnsafeStoreException(String message) {
    super(message);
  }
}
