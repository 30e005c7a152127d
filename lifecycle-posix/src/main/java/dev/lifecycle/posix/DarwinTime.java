package dev.lifecycle.posix;

/**
 * Conversions of macOS kernel times into the units the rest of the library compares: identities in
 * epoch milliseconds computed exactly as the JDK computes {@link ProcessHandle.Info#startInstant()}
 * there ({@code tv_sec * 1000 + tv_usec / 1000} of {@code p_starttime}), so an identity from {@code
 * proc_pidinfo} matches a row of the pure-JDK process table. Pure arithmetic, no native calls.
 */
final class DarwinTime {
  private DarwinTime() {}

  /** A {@code struct timeval} start time as epoch milliseconds, truncated like the JDK's. */
  static long startMillis(long seconds, long micros) {
    if (seconds < 0 || micros < 0 || micros >= 1_000_000) {
      throw new IllegalArgumentException("not a start time: " + seconds + " s " + micros + " us");
    }
    return Math.addExact(Math.multiplyExact(seconds, 1000L), micros / 1000);
  }

  /** {@code kern.boottime} as a boot id: distinct per boot, stable within one. */
  static String bootId(long seconds, long micros) {
    return "boottime-" + seconds + "." + micros;
  }
}
