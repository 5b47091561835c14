package dev.larder.wal;

import java.util.List;

/**
 * What recovery found when the log was opened.
 *
 * @param checkpointSequence sequence of the checkpoint loaded, 0 if none
 * @param checkpointEntries entries loaded from it
 * @param recordsReplayed log records replayed after it
 * @param lastSequence the highest sequence the log had reached: of the checkpoint, of a record
 *     recovered, or named by a segment's header (so that, after salvage skipped missing records,
 *     the log goes on after them rather than reusing their sequences); 0 if empty
 * @param bytesDropped bytes cut from the torn tail or skipped by salvage
 * @param problems one line per torn tail truncated, damaged region salvaged (naming file and
 *     offset) or missing file (naming it and the sequences lost; a missing segment that provably
 *     held no record is reported without salvage); empty when the log was clean
 * @param recoveryNanos time spent recovering
 */
public record RecoveryReport(
    long checkpointSequence,
    long checkpointEntries,
    long recordsReplayed,
    long lastSequence,
    long bytesDropped,
    List<String> problems,
    long recoveryNanos) {

  /** Copies the list. */
  public RecoveryReport {
    problems = List.copyOf(problems);
  }

  /** Returns true if recovery truncated or skipped anything. */
  public boolean lostAnything() {
    return bytesDropped > 0 || !problems.isEmpty();
  }
}
