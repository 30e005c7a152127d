package dev.lifecycle.time;

/** Text that is not a usable {@link Limit}: the message names the input and the reason. */
public final class LimitFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String input;
  private final String reason;

  LimitFormatException(String input, String reason) {
    super("Invalid limit " + (input == null ? "null" : '"' + input + '"') + ": " + reason);
    this.input = input;
    this.reason = reason;
  }

  /** The text as given (not stripped), or null. */
  public String input() {
    return input;
  }

  /** Why it was rejected, without the input. */
  public String reason() {
    return reason;
  }
}
