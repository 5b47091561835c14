package dev.larder.bench.measure;

import java.util.Arrays;

/**
 * Summary of repeated measurements: median and spread.
 *
 * @param median the median (mean of the middle two for an even count)
 * @param min the smallest
 * @param max the largest
 * @param count how many
 */
public record Stats(double median, double min, double max, int count) {

  /**
   * Returns their summary.
   *
   * @param samples one or more measurements
   * @throws IllegalArgumentException if there are none or one is not finite
   */
  public static Stats of(double... samples) {
    if (samples.length == 0) {
      throw new IllegalArgumentException("no samples");
    }
    double[] sorted = samples.clone();
    Arrays.sort(sorted);
    for (double s : sorted) {
      if (!Double.isFinite(s)) {
        throw new IllegalArgumentException("sample is not finite: " + s);
      }
    }
    int n = sorted.length;
    double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    return new Stats(median, sorted[0], sorted[n - 1], n);
  }

  /** Returns (max - min) / median, as a fraction; 0 when the median is 0. */
  public double relativeSpread() {
    return median == 0 ? 0 : (max - min) / median;
  }
}
