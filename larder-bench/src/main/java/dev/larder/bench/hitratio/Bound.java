package dev.larder.bench.hitratio;

/**
 * A cache's capacity: a number of entries, or a number of bytes of payload.
 *
 * @param value the capacity, positive
 * @param bytes true if {@code value} counts bytes (entries weighed by their size), false if it
 *     counts entries
 */
public record Bound(long value, boolean bytes) {

  public Bound {
    if (value <= 0) {
      throw new IllegalArgumentException("bound must be positive: " + value);
    }
  }

  public static Bound entries(long count) {
    return new Bound(count, false);
  }

  public static Bound ofBytes(long bytes) {
    return new Bound(bytes, true);
  }

  /** Returns the request's weight under this bound. */
  public long weigh(int size) {
    return bytes ? size : 1;
  }

  @Override
  public String toString() {
    return bytes ? (value >> 20) + " MiB" : Long.toString(value);
  }
}
