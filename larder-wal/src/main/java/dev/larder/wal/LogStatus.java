package dev.larder.wal;

import dev.larder.wal.internal.SegmentNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A log's state as an operator sees it: where it is, how it forces, how far it has got, how well
 * commits share forces, and its last checkpoint. Made for status pages (larder-http's console shows
 * {@link #figures()} in its "Transaction log" panel) and logs.
 *
 * @param directory the log's directory
 * @param policy the fsync policy, as {@link FsyncPolicy#parse} reads it back
 * @param lastSequence the highest sequence appended
 * @param stats counters since the log was opened
 * @param lastCheckpoint the sequence of the newest complete checkpoint in the directory, -1 if
 *     there is none
 */
public record LogStatus(
    Path directory, String policy, long lastSequence, LogStats stats, long lastCheckpoint) {

  /** Checks the components. */
  public LogStatus {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(stats, "stats");
  }

  /**
   * Reads a log's status. Lists the log's directory to find the newest checkpoint (a checkpoint
   * being installed may or may not be seen yet); thread-safe, as every {@link WriteAheadLog} method
   * is.
   *
   * @param log an open log
   * @return its status now
   * @throws UncheckedIOException if the directory cannot be listed
   */
  public static LogStatus of(WriteAheadLog log) {
    WalConfig config = log.config();
    long newest = -1;
    try {
      for (String name : config.files().list(config.directory())) {
        newest = Math.max(newest, SegmentNames.checkpointSequence(name));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + config.directory(), e);
    }
    return new LogStatus(
        config.directory(), config.policy().toString(), log.lastSequence(), log.stats(), newest);
  }

  /**
   * Returns the figures by label, in a stable order: {@code directory}, {@code fsync}, {@code
   * lastSequence}, {@code records}, {@code forces}, {@code commitsPerForce} (records per force, to
   * two decimals), {@code bytes}, {@code checkpoints} (completed since opening) and {@code
   * lastCheckpoint} (a sequence, or {@code "none"}).
   */
  public Map<String, Object> figures() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("directory", directory.toString());
    m.put("fsync", policy);
    m.put("lastSequence", lastSequence);
    m.put("records", stats.records());
    m.put("forces", stats.forces());
    m.put("commitsPerForce", Math.round(stats.recordsPerForce() * 100) / 100.0);
    m.put("bytes", stats.bytes());
    m.put("checkpoints", stats.checkpoints());
    m.put("lastCheckpoint", lastCheckpoint < 0 ? "none" : lastCheckpoint);
    return m;
  }
}
