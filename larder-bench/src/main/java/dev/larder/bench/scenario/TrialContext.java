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
   * Shows a short progress message, e.g. {@code "loaded 300,000 / 1,000,000"}. Cheap enough to
   * call every second or so; not meant for every operation.
   *
   * @param message one line
   */
  public void progress(String message) {
    progressSink.accept(message);
  }
}
