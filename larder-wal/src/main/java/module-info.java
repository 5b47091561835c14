/**
 * Larder's write-ahead log: segment files of checksummed records, group commit under the fsync
 * policies {@code always}, {@code interval} and {@code none}, checkpoints, and recovery that
 * truncates a torn tail and refuses (or, when asked, salvages) corruption before it and missing
 * segments or checkpoints.
 *
 * <p>Only {@code dev.larder.wal} is exported; the byte layouts live in
 * {@code dev.larder.wal.internal} and in {@code docs/spec/wal.md} and
 * {@code docs/spec/checkpoint.md}.
 */
module dev.larder.wal {
  exports dev.larder.wal;
  // A simulated disk for crash tests of anything built on the log (larder-tx, larder-bench).
  exports dev.larder.wal.testing;
}
