package dev.leasehold.bench.scale;

import java.util.Arrays;

/**
 * Nearest-rank percentiles of measured durations, in microseconds.
 *
 * <p>This class is immutable.
 */
record Percentiles(int count, double p50Micros, double p99Micros) {
  static Percentiles of(long[] nanos) {
    if (nanos.length == 0) {
      return new Percentiles(0, Double.NaN, Double.NaN);
    }
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return new Percentiles(sorted.length, rank(sorted, 0.50) / 1_000.0, rank(sorted, 0.99) / 1_000.0);
  }

  private static long rank(long[] sorted, double quantile) {
    int index = (int) Math.ceil(quantile * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }
}
