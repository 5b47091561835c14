package dev.larder.bench.measure;

import java.util.SplittableRandom;

/**
 * Draws integers in {@code [0, n)} with probability proportional to {@code 1 / (rank+1)^s}, by
 * binary search over a precomputed cumulative distribution. Rank 0 is the most popular; callers
 * that want popular keys spread over the key space permute ranks themselves.
 *
 * <p>Immutable after construction and safe to share; each thread passes its own random source.
 */
public final class ZipfSampler {

  private final double[] cumulative;

  /**
   * @param n the number of distinct values; positive
   * @param exponent the skew {@code s}; 0 is uniform, 0.99 is the usual YCSB-like skew
   */
  public ZipfSampler(int n, double exponent) {
    if (n <= 0) {
      throw new IllegalArgumentException("n must be positive: " + n);
    }
    cumulative = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += 1.0 / Math.pow(i + 1, exponent);
      cumulative[i] = sum;
    }
    for (int i = 0; i < n; i++) {
      cumulative[i] /= sum;
    }
  }

  /**
   * Returns a rank in {@code [0, n)}.
   *
   * @param random the caller's random source
   */
  public int next(SplittableRandom random) {
    double u = random.nextDouble();
    int lo = 0;
    int hi = cumulative.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cumulative[mid] < u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
