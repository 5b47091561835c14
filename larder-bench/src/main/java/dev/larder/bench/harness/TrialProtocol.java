package dev.larder.bench.harness;

/**
 * The line markers a forked trial uses to talk to its parent. Everything else the child prints
 * (library logs, warnings) goes to the trial's log file.
 *
 * <pre>
 *   stdout: {@code @@larder-rows <JSON array of row objects>}    exactly once, at the end
 *   stderr: {@code @@larder-progress <one line of text>}       any number of times
 * </pre>
 */
final class TrialProtocol {

  static final String ROWS = "@@larder-rows ";
  static final String PROGRESS = "@@larder-progress ";

  private TrialProtocol() {}
}
