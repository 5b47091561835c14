package dev.larder.wal;

import java.time.Duration;
import java.util.Objects;

/**
 * When the log forces its writes to the storage device, and so what an acknowledged commit
 * survives.
 *
 * <ul>
 *   <li>{@link #always()}: a commit is acknowledged only after its record has been written and
 *       forced ({@code FileChannel.force}). Survives process kill and power loss. Concurrent
 *       commits share one write and one force (group commit).
 *   <li>{@link #interval(Duration)}: a commit is acknowledged once its record is written to the
 *       operating system; a background thread forces every interval. Survives process kill; a power
 *       loss loses at most the acknowledged commits of the last interval (plus the time one force
 *       takes).
 *   <li>{@link #none()}: acknowledged once appended to the log's buffer in memory; records are
 *       written to the operating system in batches, never forced except when a segment is closed, a
 *       checkpoint completes or the log closes. A process kill loses the acknowledged commits not
 *       yet written, bounded in bytes, not in time: never more than 4 MiB of records (a committer
 *       whose record lies further beyond the written end waits for the disk), and normally less
 *       than one batch, since the committer whose record takes the pending bytes to 64 KiB writes
 *       them and a timer writes whatever is pending every 10 ms. The 10 ms are nominal: the timer
 *       runs late when the machine is loaded or the JVM pauses (a commit acknowledged 63.5 ms
 *       before a kill was lost on a loaded machine), and skips its turn while a write or a force is
 *       under way (a finished segment is forced whole at each roll, a checkpoint forces the log),
 *       while commits go on being acknowledged up to the 4 MiB bound. A power loss may lose
 *       anything the operating system had not written back.
 * </ul>
 *
 * <p><b>Visibility</b> (for {@code larder-tx}, which applies a commit in memory before it waits for
 * the log): under {@code always} a commit becomes visible to other transactions only after its
 * force, so no one sees a commit that a kill or a power loss can still take. Under {@code interval}
 * and {@code none} it becomes visible when it is applied, before its record is written: another
 * transaction can read a commit that a kill then loses, though its committer was never told it
 * succeeded. Records are written in order, so the log never keeps a commit while losing one it read
 * (under {@code interval} the reader's own commit is acknowledged only once what it read is
 * written); what is lost is what readers did outside the store with what they saw. Where that
 * matters, use {@code always}.
 *
 * <p>Immutable and thread-safe.
 */
public sealed interface FsyncPolicy {

  /** Returns the policy that forces before acknowledging. */
  static FsyncPolicy always() {
    return Always.INSTANCE;
  }

  /**
   * Returns the periodic policy.
   *
   * @param period how often the background thread forces; at least 1 ms
   * @throws IllegalArgumentException if {@code period} is shorter than 1 ms
   */
  static FsyncPolicy interval(Duration period) {
    return new Interval(period);
  }

  /** Returns the policy that never forces on commit. */
  static FsyncPolicy none() {
    return None.INSTANCE;
  }

  /**
   * Parses {@code always}, {@code none} or {@code interval(<ms>)} / {@code interval:<ms>}.
   *
   * @param text the policy's name
   * @return the policy
   * @throws IllegalArgumentException if the text names no policy
   */
  static FsyncPolicy parse(String text) {
    String t = Objects.requireNonNull(text, "text").trim().toLowerCase(java.util.Locale.ROOT);
    if (t.equals("always")) {
      return always();
    }
    if (t.equals("none")) {
      return none();
    }
    if (t.startsWith("interval")) {
      String digits = t.substring("interval".length()).replaceAll("[^0-9]", "");
      if (!digits.isEmpty()) {
        return interval(Duration.ofMillis(Long.parseLong(digits)));
      }
    }
    throw new IllegalArgumentException(
        "unknown fsync policy '" + text + "': expected always, none or interval(<ms>)");
  }

  /** Force before acknowledging. */
  enum Always implements FsyncPolicy {
    /** The only instance. */
    INSTANCE;

    @Override
    public String toString() {
      return "always";
    }
  }

  /** Never force on commit. */
  enum None implements FsyncPolicy {
    /** The only instance. */
    INSTANCE;

    @Override
    public String toString() {
      return "none";
    }
  }

  /**
   * Force periodically.
   *
   * @param period the force period, at least 1 ms
   */
  record Interval(Duration period) implements FsyncPolicy {
    /** Checks the period. */
    public Interval {
      Objects.requireNonNull(period, "period");
      if (period.toMillis() < 1) {
        throw new IllegalArgumentException("interval must be at least 1 ms: " + period);
      }
    }

    @Override
    public String toString() {
      return "interval(" + period.toMillis() + "ms)";
    }
  }
}
