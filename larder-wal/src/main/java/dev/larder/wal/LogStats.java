package dev.larder.wal;

/**
 * Counters of a log since it was opened.
 *
 * @param records records appended
 * @param writes write calls issued (each carries one or more records)
 * @param forces forces issued
 * @param recordsForced records made durable by those forces
 * @param bytes bytes appended, frames included
 * @param checkpoints checkpoints completed
 */
public record LogStats(
    long records, long writes, long forces, long recordsForced, long bytes, long checkpoints) {

  /** Returns records per force, the group-commit factor; 0 before the first force. */
  public double recordsPerForce() {
    return forces == 0 ? 0 : (double) recordsForced / forces;
  }
}
