package dev.larder.bench.scenarios;

import java.util.SplittableRandom;

/**
 * Value sizes for churn: log-uniform between a least and a greatest size, so that every order of
 * magnitude is as frequent as every other (most values small, a steady share larger than a page).
 * Immutable.
 *
 * @param least the smallest size, at least 1
 * @param most the largest size
 */
record Churn(int least, int most) {

  Churn {
    if (least < 1 || most < least) {
      throw new IllegalArgumentException(
          "sizes must satisfy 1 <= least <= most: " + least + ", " + most);
    }
  }

  /** Returns a size drawn from {@code random}. */
  int size(SplittableRandom random) {
    double span = Math.log(most) - Math.log(least);
    return (int) Math.min(most, Math.round(least * Math.exp(random.nextDouble() * span)));
  }
}
