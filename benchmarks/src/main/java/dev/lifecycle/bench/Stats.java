package dev.lifecycle.bench;

import java.util.Arrays;
import java.util.Locale;

/** Median and spread of a sample, printed the same way by every harness. */
final class Stats {
  private Stats() {}

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  static double percentile(double[] values, double p) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  /** "median M (min A, p90 B, max C, n N)" in the given unit. */
  static String describe(double[] values, String unit) {
    return String.format(
        Locale.ROOT,
        "median %.3f %s (min %.3f, p90 %.3f, max %.3f, n %d)",
        median(values),
        unit,
        Arrays.stream(values).min().orElse(Double.NaN),
        percentile(values, 90),
        Arrays.stream(values).max().orElse(Double.NaN),
        values.length);
  }
}
