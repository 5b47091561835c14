package dev.larder.wal;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How a log is opened. Immutable; the {@code with…} methods return changed copies.
 *
 * @param directory where segments, checkpoints and the lock file live; created if absent
 * @param policy when writes are forced; default {@link FsyncPolicy#always()}
 * @param segmentBytes a segment is closed and a new one started once it holds this many bytes;
 *     default 64 MiB, at least 4 KiB (a single larger record still fits: it makes its segment
 *     longer)
 * @param salvage if true, recovery skips records that fail their checksum before the tail, and
 *     missing segments or checkpoints, and reports each loss in {@link RecoveryReport#problems()};
 *     if false (the default) it refuses with {@link LogCorruptedException} (for missing files its
 *     subclass {@link LogGapException})
 * @param files the file layer; {@link FileLayer#standard()} unless a test simulates a disk
 */
public record WalConfig(
    Path directory, FsyncPolicy policy, long segmentBytes, boolean salvage, FileLayer files) {

  /** Default segment size: 64 MiB. */
  public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;

  /** Checks the settings. */
  public WalConfig {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(files, "files");
    if (segmentBytes < 4096) {
      throw new IllegalArgumentException("segmentBytes must be at least 4096: " + segmentBytes);
    }
  }

  /**
   * Returns defaults: fsync always, 64 MiB segments, no salvage, the real file system.
   *
   * @param directory the log directory
   */
  public static WalConfig of(Path directory) {
    return new WalConfig(
        directory, FsyncPolicy.always(), DEFAULT_SEGMENT_BYTES, false, FileLayer.standard());
  }

  /**
   * Returns a copy with another fsync policy.
   *
   * @param p the fsync policy
   * @return a copy with it
   */
  public WalConfig withPolicy(FsyncPolicy p) {
    return new WalConfig(directory, p, segmentBytes, salvage, files);
  }

  /**
   * Returns a copy with another segment size.
   *
   * @param bytes the segment size
   * @return a copy with it
   */
  public WalConfig withSegmentBytes(long bytes) {
    return new WalConfig(directory, policy, bytes, salvage, files);
  }

  /**
   * Returns a copy that salvages a torn or corrupt tail, or refuses it.
   *
   * @param on whether to salvage
   * @return a copy with it
   */
  public WalConfig withSalvage(boolean on) {
    return new WalConfig(directory, policy, segmentBytes, on, files);
  }

  /**
   * Returns a copy with another file layer.
   *
   * @param layer the file layer
   * @return a copy with it
   */
  public WalConfig withFiles(FileLayer layer) {
    return new WalConfig(directory, policy, segmentBytes, salvage, layer);
  }
}
