package dev.larder.bench.scenario;

import java.util.Objects;
import java.util.Optional;

/**
 * A counted progress report of a trial, e.g. 12 of 40 kills done: the harness shows it as a bar
 * with rate and time left on a terminal, as plain lines elsewhere. It travels from the trial's JVM
 * to the harness as one progress message, {@link #encode()}d as {@code #count <done>/<total>
 * <label>[ | <note>]}.
 *
 * @param label what is counted, e.g. {@code "always: kills"}; no {@code " | "} in it
 * @param done steps done, 0..total
 * @param total steps in all, positive
 * @param note a short note shown after the figures (e.g. {@code "0 lost"}), or empty
 */
public record ProgressCount(String label, long done, long total, String note) {
  private static final String PREFIX = "#count ";
  private static final String NOTE = " | ";

  /** Checks the components. */
  public ProgressCount {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(note, "note");
    if (total <= 0 || done < 0 || done > total) {
      throw new IllegalArgumentException("progress " + done + "/" + total);
    }
    if (label.contains(NOTE) || label.contains("\n") || note.contains("\n")) {
      throw new IllegalArgumentException("label or note would not survive encoding: " + label);
    }
  }

  /** Returns the one-line progress message. */
  public String encode() {
    return PREFIX + done + "/" + total + " " + label + (note.isEmpty() ? "" : NOTE + note);
  }

  /**
   * Returns the count it encodes, or empty for an ordinary message.
   *
   * @param message a progress message
   */
  public static Optional<ProgressCount> parse(String message) {
    if (!message.startsWith(PREFIX)) {
      return Optional.empty();
    }
    String rest = message.substring(PREFIX.length());
    int slash = rest.indexOf('/');
    int space = rest.indexOf(' ', Math.max(slash, 0));
    if (slash <= 0 || space < 0) {
      return Optional.empty();
    }
    try {
      long done = Long.parseLong(rest.substring(0, slash));
      long total = Long.parseLong(rest.substring(slash + 1, space));
      String tail = rest.substring(space + 1);
      int note = tail.indexOf(NOTE);
      return Optional.of(
          note < 0
              ? new ProgressCount(tail, done, total, "")
              : new ProgressCount(
                  tail.substring(0, note), done, total, tail.substring(note + NOTE.length())));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
