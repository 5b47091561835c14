package dev.larder;

/** A source of nanosecond time for expiry and latency; tests substitute a manual one. */
@FunctionalInterface
public interface Ticker {

  /** Returns nanoseconds from an arbitrary origin, non-decreasing. */
  long read();

  /** Returns {@link System#nanoTime()}. */
  static Ticker system() {
    return System::nanoTime;
  }
}
