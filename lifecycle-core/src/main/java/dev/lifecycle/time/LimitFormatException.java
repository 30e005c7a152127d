package dev.lifecycle.time;

/**
 * Text that is not a usable {@link Limit}: the message names the input and the reason. Like any
 * exception, safe to read from any thread once thrown.
 */
public final class LimitFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** The text as given, or null. */
  private final String input;

  /** Why it was rejected. */
  private final String reason;

  LimitFormatException(String input, String reason) {
    super("Invalid limit " + (input == null ? "null" : '"' + input + '"') + ": " + reason);
    this.input = input;
    this.reason = reason;
  }

  /**
   * The rejected text.
   *
   * @return the text as given (not stripped), or null when there was none
   */
  public String input() {
    return input;
  }

  /**
   * Why the text was rejected.
   *
   * @return the reason, without the input
   */
  public String reason() {
    return reason;
  }
}
