package dev.larder.cli;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Tells a person watching a long loop that it is moving: a line when a phase starts and at each
 * tenth of its steps, e.g. {@code loading nodes: 30% (30,000 of 100,000)}. Written to the error
 * stream so the command's report on standard output stays as it was. Not thread-safe: one loop
 * calls it.
 */
final class PhaseProgress {

  private final PrintWriter err;
  private final String phase;
  private final long total;
  private long nextReport;
  private int tenths;

  /**
   * @param err where the lines go
   * @param phase what the loop does, e.g. "loading nodes"
   * @param total the loop's steps, at least 1
   */
  PhaseProgress(PrintWriter err, String phase, long total) {
    this.err = err;
    this.phase = phase;
    this.total = total;
    this.nextReport = threshold(1);
    err.printf(Locale.ROOT, "%s: %,d...%n", phase, total);
    err.flush();
  }

  /**
   * @param done the steps done so far, counting up by one per call
   */
  void step(long done) {
    if (done < nextReport) {
      return;
    }
    tenths++;
    err.printf(Locale.ROOT, "%s: %d%% (%,d of %,d)%n", phase, tenths * 10, done, total);
    err.flush();
    nextReport = tenths == 10 ? Long.MAX_VALUE : threshold(tenths + 1);
  }

  private long threshold(int tenth) {
    return Math.max(1, Math.ceilDiv(total * tenth, 10));
  }
}
