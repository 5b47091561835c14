package dev.larder.wal.internal;

import java.util.HexFormat;

/** File names of segments and checkpoints: a prefix, 16 hex digits, a suffix. */
public final class SegmentNames {

  private static final String SEGMENT_PREFIX = "log-";
  private static final String SEGMENT_SUFFIX = ".wal";
  private static final String CHECKPOINT_PREFIX = "checkpoint-";
  private static final String CHECKPOINT_SUFFIX = ".ckp";

  private SegmentNames() {}

  /**
   * Returns a segment's file name.
   *
   * @param number segment number
   * @return its file name
   */
  public static String segment(long number) {
    return SEGMENT_PREFIX + HexFormat.of().toHexDigits(number) + SEGMENT_SUFFIX;
  }

  /**
   * Returns a checkpoint's file name.
   *
   * @param sequence checkpoint sequence
   * @return its file name
   */
  public static String checkpoint(long sequence) {
    return CHECKPOINT_PREFIX + HexFormat.of().toHexDigits(sequence) + CHECKPOINT_SUFFIX;
  }

  /**
   * Returns the segment number a file name gives.
   *
   * @param name a file name
   * @return its segment number, or -1 if not a segment
   */
  public static long segmentNumber(String name) {
    return number(name, SEGMENT_PREFIX, SEGMENT_SUFFIX);
  }

  /**
   * Returns the checkpoint sequence a file name gives.
   *
   * @param name a file name
   * @return its checkpoint sequence, or -1 if not a checkpoint
   */
  public static long checkpointSequence(String name) {
    return number(name, CHECKPOINT_PREFIX, CHECKPOINT_SUFFIX);
  }

  private static long number(String name, String prefix, String suffix) {
    if (!name.startsWith(prefix)
        || !name.endsWith(suffix)
        || name.length() != prefix.length() + 16 + suffix.length()) {
      return -1;
    }
    try {
      return HexFormat.fromHexDigitsToLong(name, prefix.length(), prefix.length() + 16);
    } catch (IllegalArgumentException e) {
      return -1;
    }
  }
}
