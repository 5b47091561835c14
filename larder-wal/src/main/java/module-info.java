/**
 * Larder's write-ahead log: segment files of checksummed records, group commit under the fsync
 * policies {@code always}, {@code interval} and {@code none}, checkpoints, and recovery that
 * truncates a torn tail and refuses (or, when asked, salvages) corruption before it and missing
 * segments or checkpoints.
 *
 * <p>Only {@code dev.larder.wal} is exported; the byte layouts live in {@code
 * dev.larder.wal.internal} and in {@code docs/spec/wal.md} and {@code docs/spec/checkpoint.md}. The
 * simulated disk that crash tests put under the log ({@code dev.larder.wal.testing}) is not part of
 * this module: it ships in larder-wal's test jar, which larder-tx's tests and larder-bench depend
 * on.
 */
module dev.larder.wal {
  exports dev.larder.wal;
}
