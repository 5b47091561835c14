package dev.larder.bench.hitratio;

/**
 * An implementation whose hit ratio is measured by replaying traces.
 *
 * <p>Implementations are stateless factories: every {@link #replay} starts from an empty cache.
 */
public interface Contender {

  /** Returns the name reported in the {@code implementation} column. */
  String name();

  /** Returns how many runs to average (more than one for randomised policies). */
  default int runs() {
    return 1;
  }

  /** Returns true if this contender can replay under {@code bound}. */
  default boolean supports(Bound bound) {
    return true;
  }

  /**
   * Replays {@code trace} through a new cache bounded by {@code bound}.
   *
   * @param run the run's number (0-based), usable as a seed
   */
  Outcome replay(Trace trace, Bound bound, int run);
}
