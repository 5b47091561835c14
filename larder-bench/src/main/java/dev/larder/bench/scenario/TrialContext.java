package dev.larder.bench.scenario;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * What a running trial may use besides its {@link Trial}: the run's options and a way to show
 * progress on the user's terminal during long trials.
 *
 * @param options the run's options
 * @param progressSink receives progress messages; the harness shows them on the terminal
 */
public record TrialContext(RunOptions options, Consumer<String> progressSink) {

  /** Checks for nulls. */
  public TrialContext {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(progressSink, "progressSink");
  }

  /**
   * Shows a short progress message, e.g. {@code "loaded 300,000 / 1,000,000"}. Cheap enough to call
   * every second or so; not meant for every operation.
   *
   * @param message one line
   */
  public void progress(String message) {
    progressSink.accept(message);
  }

  /**
   * Shows counted progress (a bar with rate and time left on a terminal, plain lines elsewhere).
   * Cheap enough to call after every step of a loop whose steps take a second or more; for faster
   * loops, every few hundred steps and after the last.
   *
   * @param label what is counted, e.g. {@code "always: kills"}
   * @param done steps done
   * @param total steps in all
   * @param note a short note, e.g. {@code "0 lost"}, or empty
   */
  public void progress(String label, long done, long total, String note) {
    progressSink.accept(new ProgressCount(label, done, total, note).encode());
  }
}
