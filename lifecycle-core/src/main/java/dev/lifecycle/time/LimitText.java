package dev.lifecycle.time;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;

/** Formats a positive duration for people (see {@link Limit#toString()}); stateless. */
final class LimitText {
  private static final String[] SUFFIX = {"d", "h", "m", "s", "ms", "us", "ns"};
  private static final long[] NANOS = {
    86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L, 1L
  };
  private static final BigInteger THOUSAND = BigInteger.valueOf(1000);

  private LimitText() {}

  static String format(Duration positive) {
    // BigInteger: a requested duration may exceed what a long of nanoseconds can hold.
    BigInteger nanos =
        BigInteger.valueOf(positive.getSeconds())
            .multiply(BigInteger.valueOf(1_000_000_000L))
            .add(BigInteger.valueOf(positive.getNano()));
    int unit = 0;
    while (unit < NANOS.length - 1 && nanos.compareTo(BigInteger.valueOf(NANOS[unit])) < 0) {
      unit++;
    }
    BigInteger[] whole = nanos.divideAndRemainder(BigInteger.valueOf(NANOS[unit]));
    if (whole[1].signum() == 0) {
      return whole[0] + SUFFIX[unit];
    }
    BigInteger[] smaller = nanos.divideAndRemainder(BigInteger.valueOf(NANOS[unit + 1]));
    if (smaller[1].signum() == 0 && smaller[0].compareTo(THOUSAND) < 0) {
      return smaller[0] + SUFFIX[unit + 1];
    }
    BigDecimal unitNanos = BigDecimal.valueOf(NANOS[unit]);
    BigDecimal shown =
        new BigDecimal(nanos).divide(unitNanos, 3, RoundingMode.HALF_UP).stripTrailingZeros();
    boolean exact = shown.multiply(unitNanos).compareTo(new BigDecimal(nanos)) == 0;
    return (exact ? "" : "~") + shown.toPlainString() + " " + SUFFIX[unit];
  }
}
