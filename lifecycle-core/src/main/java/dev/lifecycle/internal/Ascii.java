package dev.lifecycle.internal;

/**
 * ASCII character classes for the library's small grammars (record names, tokens, durations, hex
 * sums). Written out instead of regular expressions because a JVM's first pattern loads and
 * compiles the regex engine, and these checks run on every client's short life
 * (docs/ARCHITECTURE.md, "Cold-path rules"). Stateless and thread-safe.
 */
public final class Ascii {
  private Ascii() {}

  /**
   * Whether {@code c} is {@code 0-9}.
   *
   * @param c the character
   * @return true for an ASCII digit
   */
  public static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /**
   * Whether {@code c} is {@code 0-9}, {@code a-f} or {@code A-F}.
   *
   * @param c the character
   * @return true for an ASCII hex digit of either case
   */
  public static boolean isHexDigit(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  /**
   * Whether {@code c} is {@code A-Z}, {@code a-z} or {@code 0-9}.
   *
   * @param c the character
   * @return true for an ASCII letter or digit
   */
  public static boolean isLetterOrDigit(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  /**
   * Whether every character of {@code text} from {@code from} on is an ASCII letter, digit or one
   * of {@code extra}.
   *
   * @param text the text
   * @param from the first index to check
   * @param extra the other characters allowed, e.g. {@code "._-"}
   * @return true when nothing else occurs (also for an empty range)
   */
  public static boolean isWord(CharSequence text, int from, String extra) {
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!isLetterOrDigit(c) && extra.indexOf(c) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether every character of {@code text} from {@code from} on is {@code 0-9} or {@code a-f}.
   *
   * @param text the text
   * @param from the first index to check
   * @return true when nothing else occurs (also for an empty range)
   */
  public static boolean isLowerHex(CharSequence text, int from) {
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!isDigit(c) && (c < 'a' || c > 'f')) {
        return false;
      }
    }
    return true;
  }

  /**
   * Where the run of ASCII digits that starts at {@code from} ends.
   *
   * @param text the text
   * @param from the index the run starts at
   * @return the index after its last digit; {@code from} when there is no digit there
   */
  public static int digitsEnd(CharSequence text, int from) {
    int end = from;
    while (end < text.length() && isDigit(text.charAt(end))) {
      end++;
    }
    return end;
  }

  /**
   * The 32 bits of {@code value} as eight lower-case hex digits, zero-padded (no {@code Formatter},
   * which is slow to start).
   *
   * @param value the bits, read as unsigned
   * @return e.g. {@code 00000abc} for 0xabc, {@code ffffffff} for -1
   */
  public static String hex8(int value) {
    String hex = Integer.toHexString(value);
    return "00000000".substring(hex.length()) + hex;
  }
}
